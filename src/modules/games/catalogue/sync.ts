import { eq, sql } from 'drizzle-orm';
import type { Keyring } from '../../../platform/crypto.ts';
import { transaction, type Db } from '../../../platform/db/client.ts';
import type { GameAdapters, ListedGame } from '../adapters/adapter.ts';
import { openConfig } from '../adapters/config.ts';
import type { Regulation } from '../../../config.ts';
import { providerRtpRefusal, rtpApplies } from '../../../platform/rtp.ts';
import { CATALOGUE_STATUS, providerGames, providers } from '../tables.ts';

/**
 * `croupier games:sync <provider code>` (docs/api.md section 15, docs/games.md "Connecting a Hub88
 * operator account"): a provider's own game list, asked of it through its adapter (`listGames`, a
 * network call made before any transaction and bounded by SYNC_TIMEOUT_MS), written into its
 * provider games in one transaction:
 *
 * - a game listed and not there yet is created enabled, with the provider's code and name and a
 *   slug of its own (`<provider code>-<game code>` as a slug, `-2`, `-3`… when that is taken);
 * - a game whose name changed gets the new name;
 * - a game no longer listed (or listed as not enabled) is disabled and marked delisted; only
 *   such a game is enabled again when it comes back, so a game an operator disabled stays so;
 * - nothing else of a game is touched (slug, sort, popular, thumbnail: the operator's), and a
 *   second run with the same list changes nothing.
 *
 * Under REGULATION=br a new game is created disabled and a delisted one comes back enabled only
 * when it has an RTP of at least 85: the provider's list states no RTP, the certificate does,
 * and the operator sets it (`rtp` of the admin provider games) before enabling the game.
 *
 * Two runs for one provider at once take turns (PostgreSQL advisory lock). Thumbnails are not
 * imported: `thumbnail` is an upload of ours, and the provider's images are its own URLs.
 */
export const SYNC_TIMEOUT_MS = 60_000;
const INSERT_BATCH = 500;
const MAX_SLUG = 255;

export interface SyncReport {
  provider: string;
  listed: number;
  created: number;
  renamed: number;
  disabled: number;
  enabled: number;
  unchanged: number;
}

/** A refusal the command states in one line (exit 1): an unknown provider, one without a list, a list that could not be had. */
export class SyncError extends Error {
  override name = 'SyncError';
}

export interface SyncDependencies {
  db: Db;
  keys: Keyring;
  adapters: GameAdapters;
  /** Under `br` a game is enabled only with its certificate's RTP (src/platform/rtp.ts); default `none`. */
  regulation?: Regulation;
}

/** `value` as a slug: lower-case letters and digits in runs joined by single hyphens. */
function slugPart(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A slug no game has yet, starting from the provider's code (which has a letter) and the game's. */
function freeSlug(providerCode: string, gameCode: string, taken: Set<string>): string {
  const base = `${providerCode}-${slugPart(gameCode) || 'game'}`.slice(0, MAX_SLUG - 8).replace(/-+$/, '');
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

export async function syncCatalogue(
  deps: SyncDependencies,
  providerCode: string,
  signal = AbortSignal.timeout(SYNC_TIMEOUT_MS),
): Promise<SyncReport> {
  const { db } = deps;
  const [provider] = await db
    .select({ id: providers.id, code: providers.code, adapter: providers.adapter, adapterConfig: providers.adapterConfig })
    .from(providers)
    .where(eq(providers.code, providerCode));
  if (provider === undefined) throw new SyncError(`No provider has the code "${providerCode}".`);
  const adapter = deps.adapters.get(provider.adapter);
  if (adapter?.listGames === undefined)
    throw new SyncError(`The ${provider.adapter} adapter of provider ${provider.code} offers no game list.`);

  let listed: ListedGame[];
  try {
    listed = await adapter.listGames(openConfig(adapter.config, provider.adapterConfig, deps.keys), signal);
  } catch (error) {
    throw new SyncError(
      `The game list of provider ${provider.code} could not be had: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  // One entry per code, the first listed; a game listed as not enabled is as good as gone.
  const offered = new Map<string, ListedGame>();
  for (const game of listed) if (!offered.has(game.code)) offered.set(game.code, game);
  for (const [code, game] of offered) if (!game.enabled) offered.delete(code);

  const regulated = rtpApplies(deps.regulation ?? 'none');
  return transaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('croupier:games:sync'), ${provider.id}::int)`);
    const existing = await tx
      .select({
        id: providerGames.id,
        code: providerGames.code,
        name: providerGames.name,
        status: providerGames.status,
        delistedAt: providerGames.delistedAt,
        rtpBp: providerGames.rtpBp,
      })
      .from(providerGames)
      .where(eq(providerGames.providerId, provider.id));
    const report: SyncReport = {
      provider: provider.code,
      listed: listed.length,
      created: 0,
      renamed: 0,
      disabled: 0,
      enabled: 0,
      unchanged: 0,
    };
    const known = new Set(existing.map((game) => game.code));

    for (const game of existing) {
      const listedNow = offered.get(game.code);
      const set: Partial<typeof providerGames.$inferInsert> = {};
      if (listedNow === undefined) {
        if (game.status === CATALOGUE_STATUS.enabled) Object.assign(set, { status: CATALOGUE_STATUS.disabled, delistedAt: sql`now()` });
      } else {
        if (listedNow.name !== game.name) set.name = listedNow.name;
        if (game.delistedAt !== null) {
          const enable = !regulated || providerRtpRefusal(game.rtpBp) === undefined;
          Object.assign(set, enable ? { status: CATALOGUE_STATUS.enabled, delistedAt: null } : { delistedAt: null });
        }
      }
      if (Object.keys(set).length === 0) {
        if (listedNow !== undefined) report.unchanged++;
        continue;
      }
      await tx
        .update(providerGames)
        .set({ ...set, updatedAt: sql`now()` })
        .where(eq(providerGames.id, game.id));
      if (set.name !== undefined) report.renamed++;
      if (set.status === CATALOGUE_STATUS.disabled) report.disabled++;
      if (set.status === CATALOGUE_STATUS.enabled) report.enabled++;
    }

    const fresh = [...offered.values()].filter((game) => !known.has(game.code));
    if (fresh.length > 0) {
      const taken = new Set((await tx.select({ slug: providerGames.slug }).from(providerGames)).map((row) => row.slug));
      const rows = fresh.map((game) => ({
        providerId: provider.id,
        name: game.name,
        code: game.code,
        slug: freeSlug(provider.code, game.code, taken),
        ...(regulated ? { status: CATALOGUE_STATUS.disabled } : {}),
      }));
      for (let at = 0; at < rows.length; at += INSERT_BATCH) await tx.insert(providerGames).values(rows.slice(at, at + INSERT_BATCH));
      report.created = rows.length;
    }
    return report;
  });
}

export function formatSyncReport(report: SyncReport): string {
  return (
    `games:sync ${report.provider}: ${report.listed} listed, ${report.created} new, ${report.renamed} renamed, ` +
    `${report.disabled} disabled (gone from the list), ${report.enabled} enabled again, ${report.unchanged} unchanged`
  );
}

/** Whether a sync changed anything the catalogue shows. */
export function syncChanged(report: SyncReport): boolean {
  return report.created + report.renamed + report.disabled + report.enabled > 0;
}
