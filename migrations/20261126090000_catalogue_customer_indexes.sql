-- The customer catalogue (src/modules/games/catalogue.ts) lists only enabled rows, in `sort`
-- order: `GET /api/providers` reads `providers where status = 1 order by sort, id` and
-- `GET /api/providers/:provider/games` reads `provider_games where provider_id = $1 and
-- status = 1 order by sort, id`, each with a count(*) over the same condition (and the
-- providers' `games_count` counts a provider's enabled games). The indexes of 20261125090000
-- lead with `sort` or follow `provider_id` with `sort`, so each disabled row is read and thrown
-- away; with `status` in the key, both the page and its count walk only enabled rows, in order.
-- The older indexes stay: the admin lists filter on anything and order by (sort, id) too.
create index providers_status_sort_idx on providers (status, sort, id);
create index provider_games_provider_status_sort_idx on provider_games (provider_id, status, sort, id);
