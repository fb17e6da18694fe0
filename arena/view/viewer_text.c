/* The terminal viewer's drawing: a frame of a match as text, with a renderer
 * per game reading its observation struct, and a generic fallback renderer
 * from the field table for a game without one. Plain ASCII unless the style
 * asks for colours and suit symbols. */
#include "view/viewer.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_brawljack.h"
#include "jackarena/ja_bruise_jack.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_jack_in_the_box.h"
#include "jackarena/ja_taylor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_BLUE "\033[94m"
#define C_CYAN "\033[36m"

viewer_style viewer_style_for(FILE *f)
{
    viewer_style st = {false, false};
    const char *term = getenv("TERM");
    if (!isatty(fileno(f)) || !term || !*term || strcmp(term, "dumb") == 0)
        return st;
    const char *nc = getenv("NO_COLOR");
    st.color = !(nc && *nc);
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) {
            st.unicode = strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8") ||
                         strstr(v, "utf-8");
            break;
        }
    }
    return st;
}

static void on(FILE *f, const viewer_style *st, const char *code)
{
    if (st->color)
        fputs(code, f);
}

/* A standard card (ja_cards.h id): "7H", or "7♥" in red with symbols. The
 * ten is "T" (as ja_card_format, and so the labels of most games, write
 * it), or "10" with ten10 (Bombs, whose labels write it so). */
static void put_card_as(FILE *f, const viewer_style *st, uint8_t id, bool ten10)
{
    if (id == JA_CARD_NONE) {
        fputs("--", f);
        return;
    }
    char lab[4];
    if (ja_card_format(id, lab, sizeof lab) != JA_OK) {
        fputs("??", f);
        return;
    }
    bool red = !ja_card_is_black(id);
    if (red)
        on(f, st, C_RED);
    static const char *const sym[] = {"\u2663", "\u2666", "\u2665", "\u2660"};
    if (ja_card_is_joker(id)) {
        fputs(lab, f);
    } else {
        if (ten10 && lab[0] == 'T')
            fputs("10", f);
        else
            fputc(lab[0], f);
        fputs(st->unicode ? sym[ja_card_suit(id)] : lab + 1, f);
    }
    if (red)
        on(f, st, C_RESET);
}

static void put_card(FILE *f, const viewer_style *st, uint8_t id)
{
    put_card_as(f, st, id, false);
}

static void put_suit(FILE *f, const viewer_style *st, int suit)
{
    if (suit < 0 || suit > 3) {
        fputc('-', f);
        return;
    }
    static const char *const sym[] = {"\u2663", "\u2666", "\u2665", "\u2660"};
    if (st->unicode)
        fputs(sym[suit], f);
    else
        fputc(ja_suit_letter(suit), f);
}

/* Cards from a per-identity count array (ten10: as put_card_as). */
static void put_counts(FILE *f, const viewer_style *st, const uint8_t *count, int n, bool ten10)
{
    int shown = 0;
    for (int id = 0; id < n; id++)
        for (int k = 0; k < count[id]; k++) {
            fputc(' ', f);
            put_card_as(f, st, (uint8_t)id, ten10);
            shown++;
        }
    if (!shown)
        fputs(" (none)", f);
}

static void put_score(FILE *f, int64_t units)
{
    char b[32];
    arena_format_score(units, b, sizeof b);
    fputs(b, f);
}

/* ---- per-game renderers ------------------------------------------------------ */

/* What a renderer draws with: the stream, the style, and the match's game
 * and seats by name (a replay's model, or a match in play: the human seat's
 * screen, viewer_text_obs). */
typedef struct rctx {
    FILE *f;
    const viewer_style *st;
    const ja_game_rules *g;
    uint32_t n_seats;
    const char *const *names;   /* n_seats display names */
} rctx;

/* The seats' names of model m, into names (JA_MAX_SEATS). */
static void model_names(const viewer_model *m, const char *names[JA_MAX_SEATS])
{
    for (uint32_t s = 0; s < m->n_seats && s < JA_MAX_SEATS; s++)
        names[s] = m->r->h.players[s].name;
}

/* table: the public picture, from one seat's observation; hand: the cards
 * private to the observing seat (one line, no newline); other: what that
 * observation shows about another seat s, after two spaces (its card count,
 * cards known to be in its hand; NULL: nothing beyond the table); deciding:
 * who decides now, as the observation says (NULL: its `to_act` field). */
typedef struct game_render {
    const char *game;
    void (*table)(const rctx *c, const void *obs);
    void (*hand)(const rctx *c, const void *obs);
    void (*other)(const rctx *c, const void *obs, uint32_t s);
    void (*deciding)(const rctx *c, const void *obs);
} game_render;

/* "seat 2 (random)". */
static void put_seat(const rctx *c, uint32_t s)
{
    if (s < c->n_seats)
        fprintf(c->f, "seat %u (%s)", (unsigned)s, c->names[s]);
    else
        fprintf(c->f, "seat %u", (unsigned)s);
}

/* "13 cards", " 1 card" (the count in two columns). */
static void put_ncards(FILE *f, unsigned n)
{
    fprintf(f, "%2u card%s", n, n == 1 ? "" : "s");
}

/* ", known: 7H 9C" for the cards of a per-identity count array, if any. */
static void put_known(const rctx *c, const uint8_t *count, int n)
{
    bool any = false;
    for (int id = 0; id < n; id++)
        for (int k = 0; k < count[id]; k++) {
            fputs(any ? " " : ", known: ", c->f);
            put_card(c->f, c->st, (uint8_t)id);
            any = true;
        }
}

static void taylor_table(const rctx *c, const void *p)
{
    FILE *f = c->f;
    const ja_taylor_obs *o = p;
    /* turn counts the turns completed: the one being played is turn + 1,
     * as describe() numbers it; none once the match is over. */
    fprintf(f, "  game %u/%u", o->game + 1u, (unsigned)o->games);
    if (o->stage != JA_TAYLOR_STAGE_OVER)
        fprintf(f, " turn %u", o->turn + 1u);
    fputs("  top ", f);
    put_card(f, c->st, o->top);
    fputs("  suit ", f);
    put_suit(f, c->st, o->active_suit);
    fprintf(f, "  stock %u  pile %u  %s\n", (unsigned)o->stock_count, (unsigned)o->pile_count,
            o->direction < 0 ? "counter-clockwise" : "clockwise");
    if (o->penalty_kind != JA_TAYLOR_PEN_NONE)
        fprintf(f, "  penalty %u x %s\n", (unsigned)o->penalty_k,
                o->penalty_kind == JA_TAYLOR_PEN_TWO ? "2 (twos)" : "7 (black jacks)");
}

static void taylor_hand(const rctx *c, const void *p)
{
    const ja_taylor_obs *o = p;
    put_ncards(c->f, o->hand_count[o->seat]);
    fputc(':', c->f);
    put_counts(c->f, c->st, o->hand, 52, false);
}

static void taylor_other(const rctx *c, const void *p, uint32_t s)
{
    const ja_taylor_obs *o = p;
    fputs("  ", c->f);
    put_ncards(c->f, o->hand_count[s]);
    put_known(c, o->known + s * 52, 52);
}

static void jitb_table(const rctx *c, const void *p)
{
    FILE *f = c->f;
    const ja_jitb_obs *o = p;
    /* Boxes and positions from 0, as the labels ("target box 0 pos 2")
     * and describe() number them. */
    fprintf(f, "  game %u/%u", o->game + 1u, (unsigned)o->games);
    if (o->stage != JA_JITB_STAGE_OVER)
        fprintf(f, " turn %u%s", (unsigned)o->turn, o->extra_turn ? " (extra)" : "");
    fprintf(f, "  stock %u  discard %u", (unsigned)o->stock_count, (unsigned)o->discard_count);
    if (o->lock_seat != 255)
        fprintf(f, "  lock: seat %u", (unsigned)o->lock_seat);
    fputc('\n', f);
    for (int b = 0; b < o->n_boxes && b < JA_JITB_MAX_BOXES; b++) {
        fprintf(f, "  box %d%s:", b, o->box_open[b] ? "" : " (closed)");
        for (int q = 0; q < 4; q++) {
            fputc(' ', f);
            put_card(f, c->st, o->active[b * 4 + q]);
        }
        for (int k = 0; k < 2; k++) {
            uint8_t col = o->slot_color[2 * b + k];
            if (col == JA_JITB_NO_SLOT)
                continue;
            fprintf(f, "  [%s joker slot: ", col == JA_JITB_RED ? "red" : "black");
            if (o->slot_jack[2 * b + k] == 255)
                fputs("open]", f);
            else {
                put_card(f, c->st, o->slot_jack[2 * b + k]);
                fprintf(f, " by seat %u]", (unsigned)o->slot_seat[2 * b + k]);
            }
        }
        fputc('\n', f);
    }
}

static void jitb_hand(const rctx *c, const void *p)
{
    const ja_jitb_obs *o = p;
    put_ncards(c->f, o->hand_count[o->seat]);
    fputc(':', c->f);
    put_counts(c->f, c->st, o->hand, 52, false);
    if (o->n_marked) {
        fputs("  marked:", c->f);
        for (int i = 0; i < o->n_marked && i < JA_JITB_HAND; i++) {
            fputc(' ', c->f);
            put_card(c->f, c->st, o->marked[i]);
        }
    }
}

static void jitb_other(const rctx *c, const void *p, uint32_t s)
{
    const ja_jitb_obs *o = p;
    fputs("  ", c->f);
    put_ncards(c->f, o->hand_count[s]);
    put_known(c, o->known + s * 52, 52);
}

/* Bombs' ranks, low to high, as its labels and describe() write them. */
static const char *const bombs_rank[JA_BOMBS_RANKS] = {"3", "4", "5", "6", "7", "8", "9", "10",
                                                       "J", "Q", "K", "A", "2", "XB", "XR"};

static const char *bombs_rank_name(unsigned r)
{
    return r < JA_BOMBS_RANKS ? bombs_rank[r] : "?";
}

/* One public event of a Bombs observation, as text ("seat 1 (random) run
 * 7-Q"). */
static void bombs_event(const rctx *c, unsigned kind, unsigned seat, unsigned arg, char *buf,
                        size_t cap)
{
    char who[96], lab[VIEWER_LABEL_MAX];
    if (seat < c->n_seats)
        snprintf(who, sizeof who, "seat %u (%s)", seat, c->names[seat]);
    else
        snprintf(who, sizeof who, "seat %u", seat);
    const char *rank = bombs_rank_name(arg);
    switch (kind) {
    case JA_BOMBS_EV_DEAL: snprintf(buf, cap, "%s deals", who); break;
    case JA_BOMBS_EV_REVOLT: snprintf(buf, cap, "%s revolts", who); break;
    case JA_BOMBS_EV_OFFER: snprintf(buf, cap, "%s offers a %s", who, rank); break;
    case JA_BOMBS_EV_ACCEPT: snprintf(buf, cap, "%s accepts the %s", who, rank); break;
    case JA_BOMBS_EV_REFUSE: snprintf(buf, cap, "%s refuses the %s", who, rank); break;
    case JA_BOMBS_EV_REQUEST: snprintf(buf, cap, "%s requests a %s, not held", who, rank); break;
    case JA_BOMBS_EV_REQUEST_MET: snprintf(buf, cap, "%s requests a %s, handed over", who, rank); break;
    case JA_BOMBS_EV_RETURN: snprintf(buf, cap, "%s returns a %s", who, rank); break;
    case JA_BOMBS_EV_PLAY:
    case JA_BOMBS_EV_INTERRUPT:
        if (c->g->label((ja_action){arg}, lab, sizeof lab) < 0)
            snprintf(lab, sizeof lab, "play %u", arg);
        snprintf(buf, cap, "%s %s%s", who, lab, kind == JA_BOMBS_EV_INTERRUPT ? " out of turn" : "");
        break;
    case JA_BOMBS_EV_PASS: snprintf(buf, cap, "%s passes", who); break;
    case JA_BOMBS_EV_TRICK: snprintf(buf, cap, "%s wins the trick", who); break;
    case JA_BOMBS_EV_OUT: snprintf(buf, cap, "%s is out, place %u", who, arg); break;
    case JA_BOMBS_EV_KNAVE: snprintf(buf, cap, "%s is last, place %u", who, arg); break;
    case JA_BOMBS_EV_HAND_END: snprintf(buf, cap, "hand %u ends", arg + 1u); break;
    case JA_BOMBS_EV_MOVE: snprintf(buf, cap, "%s moves to table %u", who, arg + 1u); break;
    default: snprintf(buf, cap, "%s: event %u", who, kind); break;
    }
}

static bool bombs_boundary(unsigned kind)
{
    return kind == JA_BOMBS_EV_DEAL || kind == JA_BOMBS_EV_TRICK || kind == JA_BOMBS_EV_HAND_END;
}

/* The first event of the round that follows event b (-1: the oldest kept):
 * after a deal, the exchange until the first play, then the trick. */
static int bombs_round_start(const ja_bombs_obs *o, int b, int to)
{
    int from = b + 1;
    if (b >= 0 && o->ev_kind[b] == JA_BOMBS_EV_DEAL)
        for (int i = from; i < to; i++)
            if (o->ev_kind[i] == JA_BOMBS_EV_PLAY || o->ev_kind[i] == JA_BOMBS_EV_INTERRUPT)
                return i;
    return from;
}

/* The plays of the current trick in order, from the observation's public
 * events (everything since the last trick, deal or end of hand; before the
 * first lead of a hand, the exchange). Right after a trick is won, that
 * trick and its winner. "..." when its start is older than the events an
 * observation keeps. Wrapped at 78 columns. */
static void bombs_trick(const rctx *c, const ja_bombs_obs *o)
{
    int n = 0;
    while (n < JA_BOMBS_EVENTS && o->ev_seq[n] != 0)
        n++;
    int b = n - 1;
    while (b >= 0 && !bombs_boundary(o->ev_kind[b]))
        b--;
    const int to = n;
    const char *title = "this trick";
    if (b >= 0 && b == n - 1 && o->ev_kind[b] == JA_BOMBS_EV_TRICK) {
        title = "last trick"; /* closed by its trick event */
        do
            b--;
        while (b >= 0 && !bombs_boundary(o->ev_kind[b]));
    }
    int from = bombs_round_start(o, b, to);
    if (from >= to)
        return;
    if (b >= 0 && o->ev_kind[b] == JA_BOMBS_EV_DEAL && o->ev_kind[from] != JA_BOMBS_EV_PLAY &&
        o->ev_kind[from] != JA_BOMBS_EV_INTERRUPT)
        title = "exchange";
    int col = fprintf(c->f, "  %s:", title);
    if (b < 0 && o->event_seq > JA_BOMBS_EVENTS)
        col += fprintf(c->f, " ...");
    for (int i = from; i < to; i++) {
        char ev[160];
        bombs_event(c, o->ev_kind[i], o->ev_seat[i], o->ev_arg[i], ev, sizeof ev);
        int w = (int)strlen(ev) + (i + 1 < to ? 1 : 0);
        if (col + 1 + w > 78 && col > 4) {
            fputs("\n   ", c->f);
            col = 3;
        }
        col += fprintf(c->f, " %s%s", ev, i + 1 < to ? "," : "");
    }
    fputc('\n', c->f);
}

/* The code of the play on top of a table (a completion is on top as the
 * bomb it made), named by label() as describe() names it. */
static uint32_t bombs_top_code(const ja_bombs_obs *o)
{
    switch (o->top_form) {
    case JA_BOMBS_FORM_SINGLE: return JA_BOMBS_SINGLE(o->top_rank);
    case JA_BOMBS_FORM_PAIR: return JA_BOMBS_PAIR(o->top_rank);
    case JA_BOMBS_FORM_RUN: return JA_BOMBS_RUN(o->top_rank, o->top_len);
    case JA_BOMBS_FORM_DRUN: return JA_BOMBS_DRUN(o->top_rank, o->top_len);
    case JA_BOMBS_FORM_BOMB: return JA_BOMBS_BOMB(o->top_rank);
    case JA_BOMBS_FORM_BIG: return JA_BOMBS_BIG(o->top_rank);
    default: return JA_BOMBS_SUPER;
    }
}

/* A play's cards by rank, " [7 8 9 10 J Q]" (a completion: the pair it
 * adds); nothing for a code that is no play. */
static void bombs_play_cards(FILE *f, uint32_t code)
{
    static const int per_rank[] = {0, 1, 2, 1, 2, 3, 4, 1};
    ja_bombs_play p;
    if (!ja_bombs_play_decode(code, &p))
        return;
    int each = p.complete ? 2 : per_rank[p.form], len = p.len ? p.len : 1;
    fputs(" [", f);
    if (p.form == JA_BOMBS_FORM_SUPER)
        fputs("XB XR", f);
    for (int i = 0; i < len && p.form != JA_BOMBS_FORM_SUPER; i++)
        for (int k = 0; k < each; k++)
            fprintf(f, "%s%s", i || k ? " " : "", bombs_rank_name(p.rank + (unsigned)i));
    fputc(']', f);
}

static void bombs_table(const rctx *c, const void *p)
{
    FILE *f = c->f;
    const ja_bombs_obs *o = p;
    if (o->tiebreak)
        fprintf(f, "  tiebreak hand %u", (unsigned)o->tiebreak);
    else
        fprintf(f, "  hand %u/%u", o->hand_no + 1u, (unsigned)o->hands);
    fprintf(f, "  table %u/%u  ", o->table == 255 ? 0u : o->table + 1u, (unsigned)o->n_tables);
    char lab[VIEWER_LABEL_MAX];
    uint32_t code = bombs_top_code(o);
    if (o->top_form == JA_BOMBS_FORM_NONE || o->top_form > JA_BOMBS_FORM_SUPER ||
        c->g->label((ja_action){code}, lab, sizeof lab) < 0) {
        fputs("no play on the table", f);
    } else {
        fprintf(f, "top: %s", lab);
        bombs_play_cards(f, code);
        if (o->top_owner != 255) {
            fputs(" by ", f);
            put_seat(c, o->top_owner);
            fprintf(f, ", %u pass%s", (unsigned)o->passes, o->passes == 1 ? "" : "es");
        }
    }
    fputc('\n', f);
    bombs_trick(c, o);
}

static void bombs_hand(const rctx *c, const void *p)
{
    const ja_bombs_obs *o = p;
    put_ncards(c->f, o->count[o->seat]);
    fputc(':', c->f);
    put_counts(c->f, c->st, o->hand, JA_BOMBS_CARDS, true);
    if (o->place[o->seat])
        fprintf(c->f, "  (finished %u)", (unsigned)o->place[o->seat]);
}

/* Cards held and known ranks: only for the seats at the observer's table. */
static void bombs_other(const rctx *c, const void *p, uint32_t s)
{
    FILE *f = c->f;
    const ja_bombs_obs *o = p;
    if (o->seat_table[s] == 255) {
        fputs("  sits out this hand", f);
        return;
    }
    if (o->table == 255 || o->seat_table[s] != o->table) {
        fprintf(f, "  at table %u", o->seat_table[s] + 1u);
        return;
    }
    fputs("  ", f);
    put_ncards(f, o->count[s]);
    bool any = false;
    for (unsigned r = 0; r < JA_BOMBS_RANKS; r++)
        for (int k = 0; k < o->known[s * JA_BOMBS_RANKS + r]; k++) {
            fprintf(f, "%s%s", any ? " " : ", known: ", bombs_rank[r]);
            any = true;
        }
    if (o->place[s])
        fprintf(f, "  (finished %u)", (unsigned)o->place[s]);
}

static void bombs_deciding(const rctx *c, const void *p)
{
    FILE *f = c->f;
    const ja_bombs_obs *o = p;
    static const char *const what[] = {
        [JA_BOMBS_STAGE_REVOLT] = "revolt or not", [JA_BOMBS_STAGE_ACCEPT] = "accept the offered card or not",
        [JA_BOMBS_STAGE_REQUEST] = "request a rank or not", [JA_BOMBS_STAGE_RETURN] = "return a card",
        [JA_BOMBS_STAGE_LEAD] = "lead", [JA_BOMBS_STAGE_LEAD_RANK] = "lead",
        [JA_BOMBS_STAGE_FOLLOW] = "beat the top play or pass"};
    fputs("  to act: ", f);
    if (o->stage == JA_BOMBS_STAGE_OVER) {
        fputs("nobody, the match is over\n", f);
        return;
    }
    if (o->stage == JA_BOMBS_STAGE_IDLE) {
        /* The public view shows no table while the seats sit at several. */
        fputs(o->seat == JA_OBS_NO_SEAT ? "a seat at a table not shown\n"
                                        : "a seat at another table\n", f);
        return;
    }
    if (o->stage == JA_BOMBS_STAGE_WINDOW) {
        fputs("interrupt window for ", f);
        for (uint32_t s = 0, k = 0; s < c->n_seats && s < JA_BOMBS_MAX_SEATS; s++)
            if (o->seat_table[s] == o->table && o->count[s] && s != o->turn_seat) {
                fputs(k++ ? ", " : "", f);
                put_seat(c, s);
            }
        fputs("; then ", f);
        put_seat(c, o->turn_seat);
        fputs(" in turn\n", f);
        return;
    }
    put_seat(c, o->actor);
    if (o->stage < sizeof what / sizeof what[0] && what[o->stage])
        fprintf(f, ": %s", what[o->stage]);
    fputc('\n', f);
}

/* The total of BrawlJack cards with the aces as 1 (a joker 21): the total
 * of a bust hand, whose value the observation gives as 0. */
static unsigned brawl_hard_total(const uint8_t *cards, int n)
{
    unsigned t = 0;
    for (int i = 0; i < n; i++) {
        int r = ja_card_rank(cards[i]);
        t += ja_card_is_joker(cards[i]) ? 21u : r >= JA_RANK_T ? 10u : (unsigned)r + 1u;
    }
    return t;
}

/* The seats of an array's non-zero entries, ", "-separated. */
static void put_seats(const rctx *c, const uint8_t *a, uint32_t n)
{
    for (uint32_t s = 0, k = 0; s < n; s++)
        if (a[s]) {
            fputs(k++ ? ", " : "", c->f);
            put_seat(c, s);
        }
}

/* The main phase's result, the dealer's target, the blind round. */
static void brawl_result(const rctx *c, const ja_brawljack_obs *o, uint32_t n)
{
    FILE *f = c->f;
    if (o->mode) {
        fprintf(f, "  result (%s):",
                o->mode == JA_BRAWLJACK_MODE_POINTS ? "twenty-ones" : "highest hand");
        for (uint32_t s = 0; s < n; s++) {
            fputs(s ? ", " : " ", f);
            put_seat(c, s);
            if (o->result[s] < 0)
                fputs(" no score", f);
            else
                fprintf(f, " %d", (int)o->result[s]);
        }
        fputs("; leaders: ", f);
        put_seats(c, o->leader, n);
        if (o->dealer && o->target != 255) {
            fprintf(f, "; dealer's target %u, played by ", (unsigned)o->target);
            if (o->controller == 255)
                fputs("the referee", f);
            else
                put_seat(c, o->controller);
        }
        fputc('\n', f);
    }
    if (!o->blind_round)
        return;
    fprintf(f, "  blind round %u/%u:", (unsigned)o->blind_round, (unsigned)o->blind_rounds);
    for (uint32_t s = 0, k = 0; s < n; s++)
        if (o->blind_player[s]) {
            fputs(k++ ? "; " : " ", f);
            put_seat(c, s);
            fprintf(f, " %u face down%s", (unsigned)o->blind_count[s],
                    o->blind_stayed[s] ? ", stayed" : "");
        }
    fputc('\n', f);
}

/* The last reveal of the blind tiebreak: each hand shown, its value (a
 * bust one's total). */
static void brawl_reveal(const rctx *c, const ja_brawljack_obs *o, uint32_t n)
{
    FILE *f = c->f;
    bool any = false;
    for (uint32_t s = 0; s < n; s++) {
        int len = o->shown_count[s] < JA_BRAWLJACK_BLIND_CARDS ? o->shown_count[s]
                                                               : JA_BRAWLJACK_BLIND_CARDS;
        if (!len)
            continue;
        fputs(any ? "; " : "  blind reveal: ", f);
        any = true;
        put_seat(c, s);
        const uint8_t *cards = o->shown_card + s * JA_BRAWLJACK_BLIND_CARDS;
        for (int i = 0; i < len; i++) {
            fputc(' ', f);
            put_card(f, c->st, cards[i]);
        }
        if (o->shown_value[s])
            fprintf(f, ": %u", (unsigned)o->shown_value[s]);
        else
            fprintf(f, ": bust %u", brawl_hard_total(cards, len));
    }
    if (any)
        fputc('\n', f);
}

/* What decided a deal, from its public events from..to-1 ("  TITLE: highest
 * hand 19; blind round 1; seat 0 (greedy) shows 18; ...; won by seat 0
 * (greedy)"). Returns false, writing nothing, when they tell none of it. */
static bool brawl_outcome(const rctx *c, const ja_brawljack_obs *o, int from, int to,
                          const char *title)
{
    FILE *f = c->f;
    int k = 0, prev = -1;
    for (int i = from; i < to; i++) {
        unsigned kind = o->ev_kind[i], v = o->ev_value[i];
        if (kind < JA_BRAWLJACK_EV_RESULT_HIGH || kind == JA_BRAWLJACK_EV_BLIND_HIT ||
            kind == JA_BRAWLJACK_EV_BLIND_STAY || kind > JA_BRAWLJACK_EV_SHARE)
            continue;
        bool more_share = kind == JA_BRAWLJACK_EV_SHARE && prev == JA_BRAWLJACK_EV_SHARE;
        fputs(more_share ? ", " : k++ ? "; " : "  ", f);
        if (k == 1 && !more_share)
            fprintf(f, "%s: ", title);
        prev = (int)kind;
        switch (kind) {
        case JA_BRAWLJACK_EV_RESULT_HIGH:
            if (v == 255)
                fputs("every hand bust", f);
            else
                fprintf(f, "highest hand %u", v);
            break;
        case JA_BRAWLJACK_EV_RESULT_POINTS: fprintf(f, "most twenty-ones %u", v); break;
        case JA_BRAWLJACK_EV_DEALER: fprintf(f, "dealer's target %u", v); break;
        case JA_BRAWLJACK_EV_DEALER_WIN:
            fputs("the dealer reaches it: the deal is cancelled", f);
            break;
        case JA_BRAWLJACK_EV_DEALER_FAIL: fputs("the dealer fails", f); break;
        case JA_BRAWLJACK_EV_BLIND: fprintf(f, "blind round %u", v); break;
        case JA_BRAWLJACK_EV_REVEAL:
            put_seat(c, o->ev_seat[i]);
            if (v)
                fprintf(f, " shows %u", v);
            else
                fputs(" shows bust", f);
            break;
        case JA_BRAWLJACK_EV_WIN:
            fputs("won by ", f);
            put_seat(c, o->ev_seat[i]);
            break;
        default:
            fputs(more_share ? "" : "shared by ", f);
            put_seat(c, o->ev_seat[i]);
            break;
        }
    }
    if (k)
        fputc('\n', f);
    return k > 0;
}

/* What decided this deal, from the events since it was dealt; before its
 * result, the last deal's while the events kept hold it. */
static void brawl_decided(const rctx *c, const ja_brawljack_obs *o)
{
    int n = 0;
    while (n < JA_BRAWLJACK_EVENTS && o->ev_seq[n] != 0)
        n++;
    int d = n - 1;
    while (d >= 0 && o->ev_kind[d] != JA_BRAWLJACK_EV_DEAL)
        d--;
    if (brawl_outcome(c, o, d + 1, n, "outcome") || d <= 0)
        return;
    int p = d - 1;
    while (p >= 0 && o->ev_kind[p] != JA_BRAWLJACK_EV_DEAL)
        p--;
    char title[32];
    snprintf(title, sizeof title, "deal %u outcome", (unsigned)o->deal);
    brawl_outcome(c, o, p + 1, d, title);
}

static void brawl_table(const rctx *c, const void *p)
{
    static const char *const state[] = {"-", "live", "stayed", "bust"};
    FILE *f = c->f;
    const ja_brawljack_obs *o = p;
    uint32_t n = c->n_seats < JA_BRAWLJACK_MAX_SEATS ? c->n_seats : JA_BRAWLJACK_MAX_SEATS;
    fprintf(f, "  deal %u/%u turn %u  upcard ", o->deal + 1u, (unsigned)o->hands,
            (unsigned)o->turn);
    put_card(f, c->st, o->upcard);
    fprintf(f, "  deck %u  first: ", (unsigned)o->deck_count);
    put_seat(c, o->first);
    fputc('\n', f);
    /* Hands named as the labels name them ("hit seat 2 hand 1"). */
    for (int h = 0; h < o->n_hands && h < JA_BRAWLJACK_MAX_HANDS; h++) {
        const uint8_t *cards = o->hand_card + h * JA_BRAWLJACK_HAND_CARDS;
        int len = o->hand_len[h] < JA_BRAWLJACK_HAND_CARDS ? o->hand_len[h]
                                                           : JA_BRAWLJACK_HAND_CARDS;
        bool bust = o->hand_state[h] == JA_BRAWLJACK_HAND_BUST;
        if (o->hand_owner[h] == JA_BRAWLJACK_DEALER)
            fprintf(f, "  dealer hand %u", (unsigned)o->hand_index[h]);
        else
            fprintf(f, "  seat %u hand %u", (unsigned)o->hand_owner[h], (unsigned)o->hand_index[h]);
        fprintf(f, " %-6s %2u:", o->hand_state[h] < 4 ? state[o->hand_state[h]] : "?",
                bust ? brawl_hard_total(cards, len) : (unsigned)o->hand_value[h]);
        for (int k = 0; k < len; k++) {
            fputc(' ', f);
            put_card(f, c->st, cards[k]);
        }
        if (o->hand_21s[h])
            fputs(o->hand_21s[h] == 2 ? "  (AK-47: two 21s)" : "  (21)", f);
        fputc('\n', f);
    }
    brawl_result(c, o, n);
    brawl_reveal(c, o, n);
    brawl_decided(c, o);
}

static void brawl_hand(const rctx *c, const void *p)
{
    const ja_brawljack_obs *o = p;
    fputs("drawn ", c->f);
    put_card(c->f, c->st, o->drawn);
    if (o->blind_count[o->seat])
        fprintf(c->f, "  blind hand: %u face down", (unsigned)o->blind_count[o->seat]);
}

static void brawl_other(const rctx *c, const void *p, uint32_t s)
{
    const ja_brawljack_obs *o = p;
    if (o->blind_count[s])
        fprintf(c->f, "  blind hand: %u face down", (unsigned)o->blind_count[s]);
}

/* Bruise Jack's own deck (docs/rules/bruise-jack.md §1): colour, number and
 * suit, each a level 0..4 (level 0 wild). A card is its colour's initial
 * (K for black), its number and its suit's shape: "R4o", or "R4●" with
 * symbols, in its colour on a terminal. */
static const char BRUISE_COLOUR[] = "KRYGB", BRUISE_NUMBER[] = "?1234", BRUISE_SUIT[] = "*oh^#";
static const char *const BRUISE_SUIT_SYM[] = {"\u2731", "\u25cf", "\u2665", "\u25b2", "\u25a0"};
static const char *const BRUISE_ANSI[] = {C_BOLD, C_RED, C_YELLOW, C_GREEN, C_BLUE};
static const char *const BRUISE_ROW[] = {"colour", "number", "suit"};

static void put_bruise(FILE *f, const viewer_style *st, uint8_t id)
{
    if (id >= JA_BRUISE_JACK_CARDS) {
        fputs("--", f);
        return;
    }
    int col = ja_bruise_jack_level(id, JA_BRUISE_JACK_COLOUR);
    int suit = ja_bruise_jack_level(id, JA_BRUISE_JACK_SUIT);
    on(f, st, BRUISE_ANSI[col]);
    fprintf(f, "%c%c", BRUISE_COLOUR[col], BRUISE_NUMBER[ja_bruise_jack_level(id, JA_BRUISE_JACK_NUMBER)]);
    if (st->unicode)
        fputs(BRUISE_SUIT_SYM[suit], f);
    else
        fputc(BRUISE_SUIT[suit], f);
    on(f, st, C_RESET);
}

/* The key to the cards, in two lines of 78 columns at most. */
static void bruise_legend(const rctx *c)
{
    FILE *f = c->f;
    fputs("  key: colour K R Y G B (black red yellow green blue), number ? 1 2 3 4,\n  suit", f);
    for (int s = 0; s < 5; s++) {
        fputc(' ', f);
        if (c->st->unicode)
            fputs(BRUISE_SUIT_SYM[s], f);
        else
            fputc(BRUISE_SUIT[s], f);
    }
    fputs(" (blob circle heart triangle square); worth 1|6 (wild) 2 3 4 5\n", f);
}

/* A row's value at a showdown, as docs/rules/bruise-jack.md §4 has it. */
static void put_bruise_row(FILE *f, const ja_bruise_jack_obs *o, unsigned v)
{
    if (v == JA_BRUISE_JACK_RANK_BUST)
        fputs("bust", f);
    else if ((o->way == 1 && v == JA_BRUISE_JACK_RANK_CLAIMED) ||
             (o->way == 2 && v == JA_BRUISE_JACK_SCORE_BRUISE))
        fputs("Bruise Jack", f);
    else if (o->way == 1 && v == JA_BRUISE_JACK_RANK_GUILE)
        fputs("Guile", f);
    else
        fprintf(f, "%u", v);
}

/* The last showdown: the rows' order (Way 1) and who led it, then each
 * seat's centre and row values. */
static void bruise_showdown(const rctx *c, const ja_bruise_jack_obs *o, uint32_t n)
{
    FILE *f = c->f;
    if (!o->showdowns)
        return;
    fputs("  last showdown:", f);
    for (int i = 0; i < 3 && o->last_order[i] < 3; i++)
        fprintf(f, "%s%s", i ? ", " : " rows compared ", BRUISE_ROW[o->last_order[i]]);
    fputs(o->last_order[0] < 3 ? "; " : " ", f);
    fputs(o->last_winners & (o->last_winners - 1) ? "tied: " : "won by ", f);
    for (uint32_t s = 0, k = 0; s < n; s++)
        if (o->last_winners >> s & 1) {
            fputs(k++ ? ", " : "", f);
            put_seat(c, s);
        }
    fputc('\n', f);
    for (uint32_t s = 0; s < n; s++) {
        const uint8_t *row = o->last_row + s * 3;
        if (o->last_centre[s] == JA_BRUISE_JACK_NONE && !row[0] && !row[1] && !row[2])
            continue; /* not dealt in */
        fputs("    ", f);
        put_seat(c, s);
        if (o->last_centre[s] != JA_BRUISE_JACK_NONE) {
            fputs(" centre ", f);
            put_bruise(f, c->st, o->last_centre[s]);
        }
        for (int r = 0; r < 3; r++) {
            fprintf(f, "%s%s ", r ? ", " : ": ", BRUISE_ROW[r]);
            put_bruise_row(f, o, row[r]);
        }
        fputc('\n', f);
    }
}

static void bruise_table(const rctx *c, const void *p)
{
    FILE *f = c->f;
    const ja_bruise_jack_obs *o = p;
    uint32_t n = c->n_seats < JA_BRUISE_JACK_MAX_SEATS ? c->n_seats : JA_BRUISE_JACK_MAX_SEATS;
    fprintf(f, "  hand %u/%u", o->hand + 1u, (unsigned)o->hands);
    if (o->replay)
        fprintf(f, " (replay %u)", (unsigned)o->replay);
    fputs(", dealer ", f);
    put_seat(c, o->dealer);
    fprintf(f, "  stock %u  discard %u\n", (unsigned)o->stock_count, (unsigned)o->discard_count);
    for (uint32_t s = 0; s < n; s++) {
        if (!(o->active >> s & 1))
            continue;
        fprintf(f, "  seat %u%s%s\n", (unsigned)s, o->has_centre[s] ? " [centre]" : "",
                o->stood[s] ? " stood" : "");
        for (int r = 0; r < JA_BRUISE_JACK_ROWS; r++) {
            uint32_t k = s * 3 + (uint32_t)r;
            fprintf(f, "    %-6s %2u%s:", BRUISE_ROW[r], (unsigned)o->shown[k],
                    o->claimed[k] ? " claimed" : "");
            for (int i = 0; i < o->up_count[k] && i < JA_BRUISE_JACK_MAX_UP; i++) {
                fputc(' ', f);
                put_bruise(f, c->st, o->up[k * JA_BRUISE_JACK_MAX_UP + (uint32_t)i]);
            }
            fputc('\n', f);
        }
    }
    bruise_showdown(c, o, n);
    bruise_legend(c);
}

static void bruise_hand(const rctx *c, const void *p)
{
    const ja_bruise_jack_obs *o = p;
    fputs("centre ", c->f);
    put_bruise(c->f, c->st, o->centre);
    if (o->drawn != JA_BRUISE_JACK_NONE) {
        fputs("  drawn ", c->f);
        put_bruise(c->f, c->st, o->drawn);
    }
}

static const game_render RENDERERS[] = {
    {"taylor-blackjack", taylor_table, taylor_hand, taylor_other, NULL},
    {"jack-in-the-box", jitb_table, jitb_hand, jitb_other, NULL},
    {"bombs", bombs_table, bombs_hand, bombs_other, bombs_deciding},
    {"brawljack", brawl_table, brawl_hand, brawl_other, NULL},
    {"bruise-jack", bruise_table, bruise_hand, NULL, NULL},
};

/* The fallback: every scalar field of the observation, from the field table
 * (arrays are left to the JSON and the per-game renderers). */
static void generic_table(FILE *f, const ja_game_rules *g, const void *obs)
{
    int col = 0;
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *fd = &g->obs_fields[k];
        if (fd->count != 1)
            continue;
        int64_t v;
        viewer_field(g, obs, fd->name, 0, &v);
        char b[96];
        int n = snprintf(b, sizeof b, " %s=%lld", fd->name, (long long)v);
        if (col + n > 78) {
            fputc('\n', f);
            col = 0;
        }
        fputs(col ? "" : " ", f);
        fputs(b, f);
        col += n + (col ? 0 : 1);
    }
    if (col)
        fputc('\n', f);
}

/* The renderer of game g for observations of version obs_version (a
 * replay's may be older than the game's: the fallback draws those). */
static const game_render *renderer_of(const ja_game_rules *g, uint32_t obs_version)
{
    for (size_t i = 0; i < sizeof RENDERERS / sizeof RENDERERS[0]; i++)
        if (strcmp(RENDERERS[i].game, g->name) == 0 && g->obs_version == obs_version)
            return &RENDERERS[i];
    return NULL;
}

/* Who decides now, as observation obs tells its seat: the renderer's own
 * reading, else the `to_act` field (255: nobody), else nothing. */
static void obs_deciding(const rctx *c, const game_render *gr, const void *obs)
{
    if (gr && gr->deciding) {
        gr->deciding(c, obs);
        return;
    }
    int64_t v;
    if (!viewer_field(c->g, obs, "to_act", 0, &v))
        return;
    fputs("  to act: ", c->f);
    if (v == 255)
        fputs("nobody, the match is over", c->f);
    else
        put_seat(c, (uint32_t)v);
    fputc('\n', c->f);
}

/* Who decides now, from the replay of model m (the omniscient view). */
static void true_deciding(const rctx *c, const viewer_model *m, uint32_t fr)
{
    uint32_t mask = viewer_deciding(m, fr);
    fputs("  to act: ", c->f);
    if (!mask)
        fputs("nobody, the match is over", c->f);
    for (uint32_t s = 0, n = 0; s < c->n_seats; s++)
        if (mask >> s & 1) {
            fputs(n++ ? ", " : "", c->f);
            put_seat(c, s);
        }
    fputc('\n', c->f);
}

/* ---- frames --------------------------------------------------------------------- */

void viewer_text_header(FILE *f, const viewer_model *m, int seat, const viewer_style *st)
{
    const ref_replay *r = m->r;
    char opts[1024];
    if (ja_options_format(m->g, &r->h.options, opts, sizeof opts) < 0)
        opts[0] = '\0';
    on(f, st, C_BOLD);
    fprintf(f, "%s", m->g->title);
    on(f, st, C_RESET);
    /* A seat is never told the match seed (it gives away every deal), and
     * the number of decisions would tell it how long the match lasts. */
    if (seat == VIEWER_ALL)
        fprintf(f, ", %u seats, seed %llu, %u decisions\n", (unsigned)m->n_seats,
                (unsigned long long)r->h.seed, r->n_steps);
    else
        fprintf(f, ", %u seats\n", (unsigned)m->n_seats);
    fprintf(f, "options: %s\n", opts);
    /* The time control and fault policy, when the match had any. */
    bool policy = r->h.on_fault[0] && strcmp(r->h.on_fault, "default") != 0;
    if (r->h.move_ms || r->h.bank_ms || policy)
        fprintf(f, "time: move %u ms, bank %u ms; on fault: %s\n", (unsigned)r->h.move_ms,
                (unsigned)r->h.bank_ms, r->h.on_fault[0] ? r->h.on_fault : "default");
    for (uint32_t s = 0; s < m->n_seats; s++)
        fprintf(f, "seat %u: %s (%s%s%s)\n", (unsigned)s, r->h.players[s].name,
                r->h.players[s].kind, r->h.players[s].version[0] ? " " : "",
                r->h.players[s].version);
}

static void put_rec(FILE *f, const viewer_model *m, uint32_t fr, uint32_t ri,
                    const viewer_style *st)
{
    const ref_replay_rec *rec = &m->r->recs[ri];
    fprintf(f, "seat %u (%s): ", (unsigned)rec->seat, m->r->h.players[rec->seat].name);
    on(f, st, C_BOLD);
    fputs(m->label[ri], f);
    on(f, st, C_RESET);
    if (rec->forced)
        fputs("  [forced]", f);
    else
        fprintf(f, "  [%u choices, %.3f ms]", (unsigned)rec->n_legal,
                (double)rec->think_us / 1000.0);
    if (rec->fault) {
        on(f, st, C_RED);
        fprintf(f, "  FAULT: %s", ja_fault_name(rec->fault));
        char code[REF_ERROR_NAME_MAX];
        if (rec->fault == JA_FAULT_ERROR && rec->error)
            fprintf(f, " (act() returned %s)", ref_error_name(rec->error, code));
        if (m->forfeit_at[rec->seat] == fr)
            fputs("  FORFEITS the match", f);
        on(f, st, C_RESET);
    }
    fputc('\n', f);
}

/* The frame's title: the deal, or the decision that led to it. A seat's
 * view has no decision numbers: they would tell it how many decisions were
 * put to other seats. */
static void frame_title(FILE *f, const viewer_model *m, uint32_t fr, int seat,
                        const viewer_style *st)
{
    on(f, st, C_YELLOW);
    if (fr == 0)
        fprintf(f, "== deal ==\n");
    else if (seat >= 0)
        fprintf(f, "== seat %d sees ==\n", seat);
    else if (seat == VIEWER_PUBLIC)
        fprintf(f, "== the table shows ==\n");
    else
        fprintf(f, "== decision %u/%u ==\n", fr, m->r->n_steps);
    on(f, st, C_RESET);
}

/* The records of the decision that led to frame fr: every seat's, or in a
 * seat's view its own only (whether another seat was asked can be hidden,
 * e.g. Bombs' interrupt windows), or in the public view none (a label can
 * name what only its seat knew: Jack in the Box's target before the
 * match is declared). */
static void frame_records(FILE *f, const viewer_model *m, uint32_t fr, int seat,
                          const viewer_style *st)
{
    if (fr == 0 || seat == VIEWER_PUBLIC)
        return;
    const ref_replay_step *sp = viewer_step(m, fr);
    for (uint32_t k = 0; k < sp->n; k++) {
        uint32_t ri = sp->first + k;
        if (seat == VIEWER_ALL || m->r->recs[ri].seat == (uint32_t)seat)
            put_rec(f, m, fr, ri, st);
    }
}

/* Columns of a bot's log line in the text views; a longer one goes on in
 * the next line. */
#define LOG_COLUMNS 80

/* A bot's log, each line after "  | " within LOG_COLUMNS characters (a
 * longer line continued on the next, a UTF-8 character never cut). The text
 * is the replay's, cleaned (ja_declog.h): no escape reaches the terminal. */
static void put_log(FILE *f, const char *text, const viewer_style *st)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n"), i = 0;
        do {
            on(f, st, C_DIM);
            fputs("  | ", f);
            on(f, st, C_RESET);
            size_t start = i;
            for (int col = 4; i < n && col < LOG_COLUMNS; col++)
                for (i++; i < n && ((unsigned char)p[i] & 0xc0) == 0x80; i++)
                    ;
            fwrite(p + start, 1, i - start, f);
            fputc('\n', f);
        } while (i < n);
        p += n + (p[n] == '\n');
    }
}

/* What the bots logged for the decision that led to frame fr, under its
 * records: every seat's in the omniscient view, the seat's own in its view
 * (a log may tell the bot's hand), none in the public view. */
static void frame_logs(FILE *f, const viewer_model *m, uint32_t fr, int seat,
                       const viewer_style *st)
{
    if (fr == 0 || seat == VIEWER_PUBLIC)
        return;
    const ref_replay_step *sp = viewer_step(m, fr);
    for (uint32_t k = 0; k < sp->n; k++) {
        uint32_t s = m->r->recs[sp->first + k].seat;
        const char *text = seat == VIEWER_ALL || (uint32_t)seat == s ? viewer_log(m, fr, s) : NULL;
        if (!text)
            continue;
        on(f, st, C_CYAN);
        fprintf(f, "  log of seat %u (%s):\n", (unsigned)s, m->r->h.players[s].name);
        on(f, st, C_RESET);
        put_log(f, text, st);
    }
}

/* Each seat's line: its score (scores[s], in units), and its hand from
 * hands[s], its own observation (NULL: no hand shown), or else what obs
 * shows of it. */
static void seat_lines(const rctx *c, const game_render *gr, const void *obs,
                       const void *const *hands, const int64_t *scores)
{
    for (uint32_t s = 0; s < c->n_seats; s++) {
        fprintf(c->f, "  seat %u %-10s score ", (unsigned)s, c->names[s]);
        put_score(c->f, scores[s]);
        if (gr && hands[s]) {
            fputs("  ", c->f);
            gr->hand(c, hands[s]);
        } else if (gr && gr->other) {
            gr->other(c, obs, s);
        }
        fputc('\n', c->f);
    }
}

/* The public picture of observation obs (its game's renderer, or the
 * fallback). */
static void obs_table(const rctx *c, const game_render *gr, const void *obs)
{
    if (gr)
        gr->table(c, obs);
    else
        generic_table(c->f, c->g, obs);
}

void viewer_text_frame(FILE *f, const viewer_model *m, uint32_t fr, int seat,
                       const viewer_style *st)
{
    const char *names[JA_MAX_SEATS];
    model_names(m, names);
    const rctx c = {f, st, m->g, m->n_seats, names};
    const game_render *gr = renderer_of(m->g, m->r->h.obs_version);
    frame_title(f, m, fr, seat, st);
    frame_records(f, m, fr, seat, st);
    frame_logs(f, m, fr, seat, st);
    /* The public picture: in the omniscient view from the table in play,
     * in a seat's view from its own observation only, in the public view
     * from the public observation (the caller checked the game has one). */
    const void *obs = seat == VIEWER_PUBLIC ? viewer_obs_public(m, fr)
                      : seat == VIEWER_ALL  ? viewer_obs(m, fr, viewer_table_seat(m, fr))
                                            : viewer_obs(m, fr, (uint32_t)seat);
    if (seat == VIEWER_ALL) {
        on(f, st, C_DIM);
        fprintf(f, "  %s\n", m->describe[fr]);
        on(f, st, C_RESET);
    }
    obs_table(&c, gr, obs);
    if (seat == VIEWER_ALL)
        true_deciding(&c, m, fr);
    else
        obs_deciding(&c, gr, obs);
    /* Scores as the view's seat sees them (each seat's own in the
     * omniscient view, the public observation's in the public view); the
     * hands: every seat's in the omniscient view, the seat's own in its
     * view, none in the public view. */
    const void *hands[JA_MAX_SEATS];
    int64_t scores[JA_MAX_SEATS];
    for (uint32_t s = 0; s < m->n_seats; s++) {
        bool own = seat == VIEWER_ALL || (uint32_t)seat == s;
        hands[s] = own ? viewer_obs(m, fr, s) : NULL;
        scores[s] = seat == VIEWER_PUBLIC ? viewer_score_in(m, fr, obs, s)
                                          : viewer_score(m, fr, seat == VIEWER_ALL ? s : (uint32_t)seat, s);
    }
    seat_lines(&c, gr, obs, hands, scores);
}

void viewer_text_obs(FILE *f, const ja_game_rules *g, uint32_t n_seats, const char *const *names,
                     uint32_t seat, const void *obs, const viewer_style *st)
{
    const rctx c = {f, st, g, n_seats, names};
    const game_render *gr = renderer_of(g, g->obs_version);
    obs_table(&c, gr, obs);
    obs_deciding(&c, gr, obs);
    const void *hands[JA_MAX_SEATS] = {NULL};
    int64_t scores[JA_MAX_SEATS];
    for (uint32_t s = 0; s < n_seats && s < JA_MAX_SEATS; s++)
        scores[s] = viewer_obs_score(g, obs, s);
    if (seat < JA_MAX_SEATS)
        hands[seat] = obs;
    seat_lines(&c, gr, obs, hands, scores);
}

void viewer_text_outcome(FILE *f, const viewer_model *m, const viewer_style *st)
{
    on(f, st, C_BOLD);
    fputs("== result ==\n", f);
    on(f, st, C_RESET);
    for (uint32_t s = 0; s < m->n_seats; s++) {
        fprintf(f, "  place %u  seat %u %-10s score ", (unsigned)m->r->outcome.place[s],
                (unsigned)s, m->r->h.players[s].name);
        put_score(f, m->r->outcome.score[s]);
        fprintf(f, "  faults %u", (unsigned)m->r->faults[s]);
        if (m->forfeit_at[s]) {
            on(f, st, C_RED);
            fputs("  forfeited", f);
            on(f, st, C_RESET);
        }
        fputc('\n', f);
    }
}

void viewer_text_dump(FILE *f, const viewer_model *m, int seat, const viewer_style *st)
{
    viewer_text_header(f, m, seat, st);
    if (seat >= 0)
        fprintf(f, "view: seat %d only (what it saw)\n", seat);
    else if (seat == VIEWER_PUBLIC)
        fputs("view: public (what the table shows to everyone)\n", f);
    for (uint32_t fr = 0; fr < m->n_frames; fr++)
        if (viewer_seat_sees(m, fr, seat))
            viewer_text_frame(f, m, fr, seat, st);
    viewer_text_outcome(f, m, st);
}

/* ---- fitting a width (the keyboard view) ------------------------------------ */

/* The length of the escape sequence (ESC [ ... final) at p, 0 if none. */
static size_t escape_len(const char *p)
{
    if (p[0] != '\033' || p[1] != '[')
        return 0;
    size_t n = 2;
    while (p[n] && !(p[n] >= 0x40 && p[n] <= 0x7e))
        n++;
    return p[n] ? n + 1 : n;
}

/* The columns the n bytes at p take: escapes and UTF-8 continuation bytes
 * take none, every other byte one (the suit symbols are one column wide). */
static int text_columns(const char *p, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n;) {
        size_t e = escape_len(p + i);
        if (e) {
            i += e;
            continue;
        }
        if (((unsigned char)p[i] & 0xc0) != 0x80)
            w++;
        i++;
    }
    return w;
}

/* The indent of a line's continuations: under the first item after its
 * first ": " (a hand's first card) when that is in the left half, else
 * four more than its own indent. */
static int hanging_indent(const char *line, size_t n, int width)
{
    size_t lead = 0;
    while (lead < n && line[lead] == ' ')
        lead++;
    for (size_t i = 0; i + 1 < n; i++)
        if (line[i] == ':' && line[i + 1] == ' ') {
            int c = text_columns(line, i + 2);
            if (c <= width / 2)
                return c;
            break;
        }
    int hang = (int)lead + 4;
    return hang < width / 2 ? hang : 0;
}

/* Writes one word of n bytes, breaking it where it meets the width (only a
 * word wider than a whole line is broken). Returns the column after it. */
static int put_word(FILE *f, const char *w, size_t n, int col, int width)
{
    for (size_t i = 0; i < n;) {
        size_t e = escape_len(w + i);
        size_t k = e ? e : 1;
        while (!e && i + k < n && ((unsigned char)w[i + k] & 0xc0) == 0x80)
            k++;
        if (!e && col >= width) {
            fputc('\n', f);
            col = 0;
        }
        fwrite(w + i, 1, k, f);
        col += e ? 0 : 1;
        i += k;
    }
    return col;
}

/* One line of n bytes (no newline), wrapped between words. */
static void wrap_line(FILE *f, const char *line, size_t n, int width)
{
    int hang = hanging_indent(line, n, width), col = 0;
    size_t i = 0;
    while (i < n) {
        size_t sp = i;
        while (sp < n && line[sp] == ' ')
            sp++;
        size_t end = sp;
        while (end < n && line[end] != ' ')
            end++;
        int gap = (int)(sp - i), w = text_columns(line + sp, end - sp);
        if (col > 0 && col + gap + w > width && end > sp) {
            fprintf(f, "\n%*s", hang, "");
            col = hang;
        } else {
            gap = col + gap > width ? width - col : gap;
            fprintf(f, "%*s", gap, "");
            col += gap;
        }
        col = put_word(f, line + sp, end - sp, col, width);
        i = end;
    }
    fputc('\n', f);
}

void viewer_text_wrap(FILE *f, const char *text, int width)
{
    if (width < 8)
        width = 8;
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        wrap_line(f, text, n, width);
        text += n + (nl ? 1 : 0);
    }
}
