"""Drawing a vote pair, in one place: `rules` (which runs a vote screen may draw and what each shows blind;
the vote pool reads them) and `matchups` (picking the pair from the pool, making the matchup, checking that
a voter may use it, pruning expired ones). Two modules because the vote pool sits between them: it reads the
rules, and the draw reads the pool."""
