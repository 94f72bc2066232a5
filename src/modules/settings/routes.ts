import { Type } from 'typebox';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { parseSettings, presentSettings, SETTING_NAMES, settingsBody, settingsRecord } from './definitions.ts';
import type { SettingsService } from './service.ts';

/** GET/PUT /api/admin/settings/{referral,topup,withdraw,games} (docs/api.md section 10). */
export function registerSettingsRoutes(app: App, service: SettingsService): void {
  const tags = ['Admin: settings'];
  for (const name of SETTING_NAMES) {
    const path = `/api/admin/settings/${name}`;
    const Wrapped = Type.Object({ data: settingsRecord(name) });

    app.get(
      path,
      {
        config: { permission: 'settings.view' },
        schema: { tags, summary: `The ${name} settings in force`, response: { 200: Wrapped, ...errorResponses } },
      },
      async () => ({ data: presentSettings(name, (await service.current(name)).value) }),
    );

    app.put(
      path,
      {
        config: { permission: 'settings.manage' },
        schema: {
          tags,
          summary: `Replace the ${name} settings (stored as a new version; earlier computations keep theirs)`,
          body: settingsBody(name),
          response: { 200: Wrapped, ...errorResponses },
        },
      },
      async (request) => {
        const saved = await service.replace(operationEntry(request), name, parseSettings(name, request.body));
        return { data: presentSettings(name, saved.value) };
      },
    );
  }
}
