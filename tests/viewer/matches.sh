# The short matches of the viewer tests, one per game (sourced):
# play_all ARENA makes <game>.rpl in the working directory.
play_all() {
  local A=$1
  "$A" play taylor-blackjack greedy random --seed 1 --opt games=1 --opt turn_cap=20 --replay taylor-blackjack.rpl >/dev/null &&
  "$A" play brawljack greedy random --seed 1 --opt hands=1 --replay brawljack.rpl >/dev/null &&
  "$A" play bruise-jack greedy random --seed 1 --opt hands=1 --replay bruise-jack.rpl >/dev/null &&
  "$A" play jack-in-the-box greedy random --seed 1 --opt games=1 --replay jack-in-the-box.rpl >/dev/null &&
  "$A" play bombs greedy random random --seed 1 --opt hands=1 --opt tiebreak_hands=0 --replay bombs.rpl >/dev/null
}
GAMES="taylor-blackjack brawljack bruise-jack jack-in-the-box bombs"
# play_forfeit ARENA FAULTY_PLUGIN makes forfeit.rpl: Taylor Blackjack in
# which the faulty test bot (tests/cli/plugins/faulty.c) forfeits at its
# first fault, decision 5, and is not asked again.
play_forfeit() {
  "$1" play taylor-blackjack greedy "$2" --seed 3 --opt games=1 --opt turn_cap=20 \
    --on-fault forfeit --replay forfeit.rpl >/dev/null 2>&1
}
# play_tables ARENA makes bombs6.rpl: Bombs at two tables of three, two
# hands (the second with the exchange, after the Knaves move).
play_tables() {
  "$1" play bombs greedy random random greedy random random --seed 4 --opt hands=2 \
    --opt tiebreak_hands=0 --replay bombs6.rpl >/dev/null
}
# Think times vary from run to run: the dumps compared leave them out.
no_times() { sed -E 's/, [0-9]+\.[0-9]+ ms\]/]/'; }
# play_long ARENA makes long.rpl: Bombs at two tables of three, twelve
# hands: 2,090 decisions, a page as long as a spectator may open.
play_long() {
  "$1" play bombs greedy random random greedy random random --seed 4 --opt hands=12 \
    --opt tiebreak_hands=0 --replay long.rpl >/dev/null
}
# play_dealer ARENA makes dealer.rpl: BrawlJack with the dealer, two deals:
# bust hands (a joker's among them), the dealer failing, and in the second
# deal a blind tiebreak whose reveal shows a bust hand.
play_dealer() {
  "$1" play brawljack greedy random --seed 19 --opt hands=2 --opt dealer=on \
    --replay dealer.rpl >/dev/null
}
# play_logs ARENA LOGGER_PLUGIN makes logs.rpl: Taylor Blackjack between
# two copies of the logging test bot (tests/cli/plugins/logger.c), which log
# "seat S turn T: ..." at each decision; seat 0 also a line of HTML (which
# the page must show as text), seat 1 300 bytes of 'x' lines a decision
# (lines wider than a terminal).
play_logs() {
  "$1" play taylor-blackjack "$2:html=1" "$2:flood=300" --seed 3 --opt games=1 --opt turn_cap=20 \
    --replay logs.rpl >/dev/null
}
