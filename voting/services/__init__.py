"""Writes of the voting app, one module per job (import from the module that holds what you use); drawing a
pair and making its matchup is `voting.draw`:

- `limits`: the rate limits, sliding windows per account and per address (`rate_limit_hit`,
  `rate_limits_hit`);
- `counting`: casting a vote (`vote_cast`, `vote_record`) and the counting rules it applies (`vote_standing`),
  and new-account votes starting to count (`votes_mature`);
- `flagging`: the agreement check against everyone else's fit (`voter_agreement`), flagging voters
  (`voters_flag`) and an editor clearing a flag (`voter_flag_clear`);
- `editing`: an editor correcting or removing a vote from the admin (`vote_change`).
"""
