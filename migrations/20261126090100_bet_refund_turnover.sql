-- A refunded bet no longer counts in the withdrawal turnover. `balances.bet_turnover` (what
-- the `total_bet` limit reads) was the sum of `bet` lines, so a bet that a provider refunded or
-- a cancelled draw gave back still counted as wagered, and a player could meet the limit by
-- staking and having the stakes returned. Both refunds are `bet_refund` lines giving back
-- exactly a `bet` line's stake (provider_wallet_refund, cancel_draw), and both go through
-- ledger_apply, so the rule lives there (db/functions/ledger_apply.sql): a `bet_refund` line
-- takes its amount off the turnover, never below 0.
--
-- The turnover is therefore, line by line in id order (the order the balance row lock imposes),
-- T = max(0, T + d) with d = -amount of each `bet` (+stake) and `bet_refund` (-stake) line.
-- Such a floored running sum equals S_n - least(0, min over k <= n of S_k), with S the plain
-- running sum: what the backfill below and `croupier ledger:verify` compute.

update balances b set bet_turnover = t.turnover
  from (
    select s.balance_id, sum(s.delta) - least(0, min(s.running)) as turnover
      from (
        select e.balance_id, -e.amount as delta, sum(-e.amount) over (partition by e.balance_id order by e.id) as running
          from ledger_entries e where e.type in ('bet', 'bet_refund')
      ) s
      group by s.balance_id
  ) t
  where t.balance_id = b.id and b.bet_turnover <> t.turnover;
