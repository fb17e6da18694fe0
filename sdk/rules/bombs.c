/* Bombs: the rules engine (a climbing game with out-of-turn bombs, an
 * exchange between the Master and the Knave, and a multiple-tables variant).
 * It implements the project's specification of the game; the rules as
 * implemented, with every decision the specification left open, are in
 * docs/rules/bombs.md. Section (§) and resolution (#) numbers below are the
 * specification's.
 *
 * The state is one flat, pointer-free struct (memcpy clones it). It holds the
 * future: the match seed, from which every deal and every dealer draw is
 * derived per (hand, table). Nothing here allocates, blocks or keeps global
 * mutable state.
 *
 * Who decides is public. An interrupt window (§7.3) is put to every seat of
 * the table holding cards except the seat due in turn; a seat with no
 * interrupt has the single legal action DECLINE, which the referee answers
 * itself (a forced decision, never sent to a bot), so the bots asked are
 * exactly the eligible seats while to_act() depends on public facts only.
 * The Knave's revolt (E1) is likewise put to him at every exchange, forced
 * to NO_REVOLT unless he holds both jokers. This is what lets determinize()
 * and sample() re-deal hidden cards without ever changing who is asked.
 *
 * Tables play one after another (§9): to_act() names seats of one table, the
 * current one (`cur`), and a joint decision never spans two tables.
 *
 * Invariants kept by every function that changes the state:
 *  - Unless `over`, table `cur` is at a decision: `stage` says which; in a
 *    one-seat stage `actor` decides, in WINDOW the candidates do (every seat
 *    of the table with cards except `turn`). After apply the state is always
 *    at a decision or over; automatic steps (the offer E2, the end of a
 *    table's hand, the next table, the next hand) happen inside apply.
 *  - Each table deals its own 54 card identities: a card is in exactly one
 *    hand of that table (bit id of cards[seat]) or played (counted by rank
 *    in played[]; which copy was played is not recorded, as suits never
 *    matter after the deal).
 *  - known[s][r] <= the cards of rank r seat s holds: cards every seat of its
 *    table saw go into that hand (the exchange) and not seen leave it since.
 *    absent[s] bit r: the cards of s beyond `known` hold no rank r (the
 *    Knave's offered card was his highest; a failed request). club3 is the
 *    first leader of a hand without exchange until he plays a 3 (the lowest
 *    id of a rank goes first, so his first 3 is the 3 of clubs). These are
 *    the public constraints that determinize() and sample() respect.
 *  - Each seat has its own ring of the public events it saw, numbered by its
 *    own counter: nothing in it depends on another table or on who was
 *    asked. Declines and NO_REVOLT are never events. */
#include "jackarena/ja_bombs.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "engine_util.h"

#include <stdio.h>
#include <string.h>

#define NONE 0xFFu
#define MAXS JA_BOMBS_MAX_SEATS
#define MAXT JA_BOMBS_MAX_TABLES
#define MAXC JA_BOMBS_MAX_CHAIRS
#define RANKS JA_BOMBS_RANKS
#define N_EVENTS JA_BOMBS_EVENTS
#define N_CARDS JA_BOMBS_CARDS
#define MAX_LEGAL 30        /* the longest list any stage can produce (max_actions) */
#define MAX_HANDS 100       /* option hands */
#define MAX_TIEBREAK 12     /* option tiebreak_hands */
#define ID_3C 2u            /* the 3 of clubs: ja_card_make(JA_SUIT_C, JA_RANK_3) */
#define R_LAST_RUN JA_BOMBS_R_A   /* runs stop at the ace */
#define R_LAST_SET JA_BOMBS_R_2   /* pairs, bombs and big bombs: 3 .. 2 */
#define R_LAST_REQUEST JA_BOMBS_R_10

/* The options, in spec order (engine_util.h, "Options"). */
#define BOMBS_OPTIONS(X) \
    X(HANDS, "hands", JA_OPT_INT, NULL, 1, MAX_HANDS, "12",                                        \
      "hands in a game (the match)")                                                               \
    X(OUT_OF_TURN, "out_of_turn", JA_OPT_ENUM, "on|off", 0, 0, "on",                               \
      "on: interrupt windows for bombs and completions after every play; off: only in turn")       \
    X(AFTER_PASS, "interrupt_after_pass", JA_OPT_ENUM, "off|on", 0, 0, "off",                      \
      "on: also open a window after every pass that does not end the trick")                       \
    X(TABLES, "tables", JA_OPT_ENUM, "auto|1|2|3|4|5|6", 0, 0, "auto",                             \
      "tables of 3 to 5 seats: auto = 1 for 3-5 players, else the fewest, as even as "             \
      "possible")                                                                                  \
    X(TIEBREAK, "tiebreak_hands", JA_OPT_INT, NULL, 0, MAX_TIEBREAK, "3",                          \
      "the most extra hands played to break a tie for first")
enum { BOMBS_OPTIONS(EU_OPT_ID) OPT_COUNT };
enum { OOT_ON, OOT_OFF };       /* option out_of_turn, as an ENUM index */
enum { AFTER_OFF, AFTER_ON };   /* option interrupt_after_pass */

/* A seat's ring of events (engine_util.h, "Event rings"). */
typedef struct bombs_ring {
    uint8_t ev_kind[N_EVENTS], ev_seat[N_EVENTS];
    uint16_t ev_arg[N_EVENTS];
} bombs_ring;

/* One table's hand. Seats are referred to by their global number; `chair`
 * gives the clockwise order. */
typedef struct bombs_table {
    uint16_t requested;        /* E4: ranks asked and not held by the Master */
    uint8_t size;              /* chairs, 3..5; 0 for a table not in use */
    uint8_t chair[MAXC];       /* chair -> seat */
    uint8_t dealer;            /* NONE until the table's hand is dealt */
    uint8_t master, knave;     /* the exchange pair of this hand, NONE without exchange */
    uint8_t stage, actor;      /* JA_BOMBS_STAGE_*; the seat of a one-seat stage */
    uint8_t lead_form, lead_len;                  /* L2: the kind chosen in L1 */
    uint8_t top_form, top_rank, top_len, top_owner; /* the top play and w */
    uint8_t turn;              /* n: the seat due in turn (F, W), else NONE */
    uint8_t passes;            /* passes in turn since the top play */
    uint8_t offer;             /* rank of the Knave's offered card, NONE */
    uint8_t club3;             /* seat known to hold the 3 of clubs, NONE */
    uint8_t n_out;             /* places given (the Knave's included) */
    uint8_t played[RANKS];
} bombs_table;

typedef struct bombs_state {
    uint64_t seed;               /* the match seed: every deal comes from it */
    uint64_t cards[MAXS];        /* bit id: card identity held */
    int32_t score[MAXS];         /* published points */
    uint32_t ev_count[MAXS];     /* events each seat has seen */
    uint32_t ev_mark[MAXS];      /* ev_count when the seat's table was dealt (test_deal) */
    uint16_t absent[MAXS];
    uint16_t hands, hand;        /* option hands; current hand, 0-based */
    uint8_t n, out_of_turn, after_pass, tables, tiebreak_cap;
    uint8_t tiebreak;            /* 0, or the number of the tiebreak hand */
    uint8_t n_tables, cur, over;
    uint8_t seat_table[MAXS], seat_chair[MAXS]; /* NONE for a seat sitting out */
    uint8_t count[MAXS], place[MAXS], last_place[MAXS];
    uint8_t known[MAXS][RANKS];
    bombs_table t[MAXT];
    bombs_ring ev[MAXS];         /* seat s's events; ev_count[s] of them so far */
} bombs_state;

/* ---- Ranks and cards --------------------------------------------------------- */

static const char *const RANK_NAMES[RANKS] = {"3", "4", "5", "6", "7", "8", "9", "10",
                                              "J", "Q", "K", "A", "2", "XB", "XR"};

static int rank_of_id(unsigned id)
{
    return id >= 52 ? JA_BOMBS_R_XB + (int)(id - 52) : (ja_card_rank((uint8_t)id) + 11) % 13;
}

/* The four identities of a rank below the jokers (one a suit, 13 apart),
 * for the card rank of bit 0. */
#define SUIT_COPIES UINT64_C(0x8004002001)

/* The identities of each rank, as a set: rank r is card rank (r + 2) % 13
 * (ja_cards.h: card rank 0 is the ace, 1 the 2, 2 the 3 .. 12 the king),
 * the jokers are 52 and 53. */
static const uint64_t RANK_BITS[RANKS] = {
    SUIT_COPIES << 2, SUIT_COPIES << 3,  SUIT_COPIES << 4,  SUIT_COPIES << 5,
    SUIT_COPIES << 6, SUIT_COPIES << 7,  SUIT_COPIES << 8,  SUIT_COPIES << 9,
    SUIT_COPIES << 10, SUIT_COPIES << 11, SUIT_COPIES << 12, SUIT_COPIES << 0,
    SUIT_COPIES << 1, UINT64_C(1) << 52,  UINT64_C(1) << 53};

/* The identities of rank r, as a set. */
static uint64_t rank_bits(int r) { return RANK_BITS[r]; }

static int copies(int r) { return r >= JA_BOMBS_R_XB ? 1 : 4; }

/* A hand by rank: at[k], the ranks (bit r) held at least k times (k = 1
 * .. 4; the jokers only in at[1]; at[0] every rank). Legal actions are read from these sets
 * (a play's lowest ranks are the bits of one set, or of a few combined)
 * rather than from a count per rank, which cost a loop over the ranks per
 * form. */
typedef struct rank_sets {
    uint32_t at[5];
} rank_sets;

/* A suit's 13 card ranks (bit (r + 2) % 13 for rank r) as ranks (bit r). */
static uint32_t suit_ranks(uint32_t m) { return (m >> 2) | ((m & 3u) << 11); }

/* The sets of a hand: suits a, b, c, d; at least two of four is a pair
 * within a and b or c and d, or one of each; at least three, both of one
 * and one of the other. */
static rank_sets sets_of(uint64_t cards)
{
    const uint32_t a = (uint32_t)cards & 0x1FFFu, b = (uint32_t)(cards >> 13) & 0x1FFFu,
                   c = (uint32_t)(cards >> 26) & 0x1FFFu, d = (uint32_t)(cards >> 39) & 0x1FFFu;
    const uint32_t ab = a & b, cd = c & d, a_b = a | b, c_d = c | d;
    rank_sets h;
    h.at[0] = (1u << RANKS) - 1;
    h.at[1] = suit_ranks(a_b | c_d) | (uint32_t)((cards >> 52) & 3u) << JA_BOMBS_R_XB;
    h.at[2] = suit_ranks(ab | cd | (a_b & c_d));
    h.at[3] = suit_ranks((ab & c_d) | (cd & a_b));
    h.at[4] = suit_ranks(ab & cd);
    return h;
}

static bool has_jokers(const rank_sets *h)
{
    return ((h->at[1] >> JA_BOMBS_R_XB) & 3u) == 3u;
}

/* The ranks a run of len ranks can start from when each of its ranks is in
 * set (held at least once for a run, twice for a double run): runs stop at
 * the ace. */
#define RUN_RANKS ((2u << R_LAST_RUN) - 1)
static uint32_t run_starts(uint32_t set, int len)
{
    uint32_t m = set & RUN_RANKS;
    for (int i = 1; i < len; i++)
        m &= m >> 1;
    return m;
}

/* Ranks above r, as a mask. */
static uint16_t ranks_above(int r)
{
    return (uint16_t)(((1u << RANKS) - 1) & ~((2u << r) - 1));
}

/* ---- Plays ----------------------------------------------------------------------- */

/* A play's code is taken apart by ja_bombs_play_decode (ja_bombs.h), the
 * decoder bots use too. */

/* The ranks a play takes cards of (bit r), *copies cards of each. */
static uint32_t play_ranks(const ja_bombs_play *p, int *copies_each)
{
    *copies_each = 1;
    switch (p->form) {
    case JA_BOMBS_FORM_SINGLE: return 1u << p->rank;
    case JA_BOMBS_FORM_PAIR: *copies_each = 2; return 1u << p->rank;
    case JA_BOMBS_FORM_RUN:
    case JA_BOMBS_FORM_DRUN:
        *copies_each = p->form == JA_BOMBS_FORM_RUN ? 1 : 2;
        return ((1u << p->len) - 1) << p->rank;
    case JA_BOMBS_FORM_BOMB: *copies_each = p->complete ? 2 : 3; return 1u << p->rank;
    case JA_BOMBS_FORM_BIG: *copies_each = 4; return 1u << p->rank;
    default: return 3u << JA_BOMBS_R_XB;
    }
}

/* ---- Events ------------------------------------------------------------------------ */

static void push_to(bombs_state *s, int seat, int kind, int who, unsigned arg)
{
    bombs_ring *e = &s->ev[seat];
    uint32_t slot = eu_ring_push(&s->ev_count[seat], N_EVENTS);
    e->ev_kind[slot] = (uint8_t)kind;
    e->ev_seat[slot] = (uint8_t)who;
    e->ev_arg[slot] = (uint16_t)arg;
}

/* An event for every seat of a table. */
static void push_table(bombs_state *s, const bombs_table *tb, int kind, int who, unsigned arg)
{
    for (int k = 0; k < tb->size; k++)
        push_to(s, tb->chair[k], kind, who, arg);
}

static void push_all(bombs_state *s, int kind, int who, unsigned arg)
{
    for (int i = 0; i < s->n; i++)
        push_to(s, i, kind, who, arg);
}

/* ---- Tables and seats ---------------------------------------------------------------- */

static bombs_table *table_of(bombs_state *s, int seat) { return &s->t[s->seat_table[seat]]; }

/* The seat k chairs clockwise after chair c (both below the table's size):
 * (c + k) % size, without a division. */
static int chair_after(const bombs_table *tb, int c, int k)
{
    const int i = c + k;
    return tb->chair[i >= tb->size ? i - tb->size : i];
}

/* The next seat clockwise after `seat` at its table that holds cards, or
 * NONE. */
static int next_holder(const bombs_state *s, const bombs_table *tb, int seat)
{
    int c = s->seat_chair[seat];
    for (int k = 1; k < tb->size; k++) {
        int o = chair_after(tb, c, k);
        if (s->count[o] > 0)
            return o;
    }
    return NONE;
}

static int holders(const bombs_state *s, const bombs_table *tb)
{
    int h = 0;
    for (int k = 0; k < tb->size; k++)
        h += s->count[tb->chair[k]] > 0;
    return h;
}

/* The seats of an open window: every seat of the table holding cards except
 * the one due in turn. */
static uint32_t window_seats(const bombs_state *s, const bombs_table *tb)
{
    uint32_t m = 0;
    for (int k = 0; k < tb->size; k++) {
        int o = tb->chair[k];
        if (s->count[o] > 0 && o != tb->turn)
            m |= UINT32_C(1) << o;
    }
    return m;
}

/* Hand points by finishing place (§8): 4, 3, 2 ... 2, and 1 for the Knave. */
static int points(int place, int size)
{
    return place == 1 ? 4 : place == 2 ? 3 : place == size ? 1 : 2;
}

/* Seats the members (a seat mask) at n_tables tables in seat order, as
 * evenly as possible, larger tables first (§9); the others sit out. No
 * table has an exchange pair yet. */
static void seat_tables(bombs_state *s, uint32_t members, int n_tables)
{
    memset(s->t, 0, sizeof s->t);
    memset(s->seat_table, NONE, sizeof s->seat_table);
    memset(s->seat_chair, NONE, sizeof s->seat_chair);
    int m = eu_popcount32(members), base = m / n_tables, extra = m % n_tables;
    int seat = 0;
    for (int u = 0; u < n_tables; u++) {
        bombs_table *tb = &s->t[u];
        tb->size = (uint8_t)(base + (u < extra));
        for (int k = 0; k < tb->size; k++) {
            while (!((members >> seat) & 1u))
                seat++;
            tb->chair[k] = (uint8_t)seat;
            s->seat_table[seat] = (uint8_t)u;
            s->seat_chair[seat] = (uint8_t)k;
            seat++;
        }
        memset(tb->chair + tb->size, NONE, MAXC - tb->size);
        tb->master = tb->knave = NONE;
    }
    s->n_tables = (uint8_t)n_tables;
}

/* The fewest tables of 3 to 5 seats for m players (option tables=auto). */
static int auto_tables(int m) { return (m + 4) / 5; }

/* ---- Moving cards -------------------------------------------------------------------- */

/* Removes the lowest-id card of rank r (the seat holds one) and returns its
 * id; the public knowledge follows (one card of that rank left the hand). */
static unsigned take_one(bombs_state *s, int seat, int r)
{
    uint64_t m = s->cards[seat] & rank_bits(r);
    unsigned id = (unsigned)__builtin_ctzll(m);
    s->cards[seat] &= ~(UINT64_C(1) << id);
    s->count[seat]--;
    if (s->known[seat][r])
        s->known[seat][r]--;
    if (id == ID_3C)
        table_of(s, seat)->club3 = NONE;
    return id;
}

/* Takes k cards of each rank of `ranks` (the seat holds them) from seat's
 * hand to the ranks played: take_one for each card, the cards of a rank
 * taken together. */
static void take_play(bombs_state *s, bombs_table *tb, int seat, uint32_t ranks, int k)
{
    const uint64_t cards = s->cards[seat];
    uint64_t taken = 0;
    int n = 0;
    for (; ranks; ranks &= ranks - 1) {
        const int r = __builtin_ctz(ranks);
        uint64_t m = cards & rank_bits(r);
        for (int j = 0; j < k; j++) {
            taken |= m & (~m + 1); /* the lowest identities first */
            m &= m - 1;
        }
        uint8_t *known = &s->known[seat][r];
        *known = *known > k ? (uint8_t)(*known - k) : 0;
        tb->played[r] = (uint8_t)(tb->played[r] + k);
        n += k;
    }
    s->cards[seat] = cards & ~taken;
    s->count[seat] = (uint8_t)(s->count[seat] - n);
    if ((taken >> ID_3C) & 1u)
        tb->club3 = NONE;
}

/* One card of rank r passes face up from one seat to another (§6). */
static void give(bombs_state *s, int from, int to, int r)
{
    unsigned id = take_one(s, from, r);
    s->cards[to] |= UINT64_C(1) << id;
    s->count[to]++;
    s->known[to][r]++;
}

static int highest_rank(uint64_t cards)
{
    int r = RANKS - 1;
    while (r > 0 && !(cards & rank_bits(r)))
        r--;
    return r;
}

/* ---- The flow of a hand ------------------------------------------------------------------ */

static void begin_table(bombs_state *s, int u);

static bool exchange_hand(const bombs_state *s) { return s->tiebreak == 0 && s->hand > 0; }

static void start_lead(bombs_table *tb, int leader)
{
    tb->stage = JA_BOMBS_STAGE_LEAD;
    tb->actor = (uint8_t)leader;
    tb->lead_form = tb->lead_len = 0;
    tb->top_form = JA_BOMBS_FORM_NONE;
    tb->top_rank = tb->top_len = 0;
    tb->top_owner = NONE;
    tb->turn = NONE;
    tb->passes = 0;
}

/* Seat n is due in turn: a window first when they are on (§7.2). With two
 * or more seats holding cards a window always has a seat. */
static void open_turn(const bombs_state *s, bombs_table *tb, int n)
{
    tb->turn = (uint8_t)n;
    if (s->out_of_turn == OOT_ON) {
        tb->stage = JA_BOMBS_STAGE_WINDOW;
        tb->actor = NONE;
    } else {
        tb->stage = JA_BOMBS_STAGE_FOLLOW;
        tb->actor = (uint8_t)n;
    }
}

/* The trick is w's; w leads the next one, or the next seat with cards if w
 * is out (§7.2 step 4). */
static void end_trick(bombs_state *s, bombs_table *tb)
{
    int w = tb->top_owner;
    push_table(s, tb, JA_BOMBS_EV_TRICK, w, 0);
    start_lead(tb, s->count[w] > 0 ? w : next_holder(s, tb, w));
}

/* Rotation after a regular hand that another regular hand follows (§9):
 * each table's Knave takes the chair of the next table's Knave and will
 * deal there; each table's Master stays. */
static void rotate(bombs_state *s)
{
    uint8_t knave[MAXT], master[MAXT], chair[MAXT];
    memset(knave, NONE, sizeof knave);
    memset(master, NONE, sizeof master);
    for (int u = 0; u < s->n_tables; u++) {
        const bombs_table *tb = &s->t[u];
        for (int k = 0; k < tb->size; k++) {
            int o = tb->chair[k];
            if (s->place[o] == 1)
                master[u] = (uint8_t)o;
            if (s->place[o] == tb->size)
                knave[u] = (uint8_t)o;
        }
        chair[u] = s->seat_chair[knave[u]];
    }
    for (int u = 0; u < s->n_tables; u++) {
        int to = (u + 1) % s->n_tables, k = knave[u];
        s->t[to].chair[chair[to]] = (uint8_t)k;
        s->seat_table[k] = (uint8_t)to;
        s->seat_chair[k] = chair[to];
        if (to != u)
            push_all(s, JA_BOMBS_EV_MOVE, k, (unsigned)to);
    }
    for (int u = 0; u < s->n_tables; u++) {
        s->t[u].master = master[u];
        s->t[u].knave = knave[(u + s->n_tables - 1) % s->n_tables];
    }
}

/* A tie for first after the last hand (§8, #21, #29): the group (everyone
 * tied for first, plus whole lower score levels until it has 3 players) as
 * a seat mask, or 0 when first place is not shared. */
static uint32_t tie_group(const bombs_state *s)
{
    int32_t best = s->score[0];
    for (int i = 1; i < s->n; i++)
        if (s->score[i] > best)
            best = s->score[i];
    uint32_t group = 0;
    for (int i = 0; i < s->n; i++)
        if (s->score[i] == best)
            group |= UINT32_C(1) << i;
    if (eu_popcount32(group) < 2)
        return 0;
    while (eu_popcount32(group) < 3) {
        int32_t level = INT32_MIN;
        for (int i = 0; i < s->n; i++)
            if (!((group >> i) & 1u) && s->score[i] > level)
                level = s->score[i];
        for (int i = 0; i < s->n; i++)
            if (s->score[i] == level)
                group |= UINT32_C(1) << i;
    }
    return group;
}

/* Clears a seat's cards and what is known of them. */
static void clear_seat(bombs_state *s, int seat)
{
    s->cards[seat] = 0;
    s->count[seat] = 0;
    s->place[seat] = 0;
    s->absent[seat] = 0;
    memset(s->known[seat], 0, RANKS);
}

/* Clears a table's hand (not dealt, no trick, no exchange yet); its layout
 * and its exchange pair stay. */
static void clear_table(bombs_table *tb)
{
    tb->requested = 0;
    tb->dealer = tb->actor = tb->top_owner = tb->turn = tb->offer = tb->club3 = NONE;
    tb->stage = JA_BOMBS_STAGE_IDLE;
    tb->lead_form = tb->lead_len = tb->top_form = tb->top_rank = tb->top_len = 0;
    tb->passes = tb->n_out = 0;
    memset(tb->played, 0, sizeof tb->played);
}

/* Clears every seat (those sitting out too) and every table, then deals
 * table 0. */
static void start_hand(bombs_state *s)
{
    for (int i = 0; i < s->n; i++)
        clear_seat(s, i);
    for (int u = 0; u < s->n_tables; u++)
        clear_table(&s->t[u]);
    s->cur = 0;
    begin_table(s, 0);
}

/* Every table is done: publish the points and places, then the next hand,
 * a tiebreak hand, or the end of the match. */
static void end_hand(bombs_state *s)
{
    for (int i = 0; i < s->n; i++) {
        s->last_place[i] = s->place[i];
        if (s->seat_table[i] != NONE)
            s->score[i] += points(s->place[i], table_of(s, i)->size);
    }
    push_all(s, JA_BOMBS_EV_HAND_END, NONE, s->hand);
    if (s->tiebreak == 0 && s->hand + 1u < s->hands) {
        rotate(s);
        s->hand++;
        start_hand(s);
        return;
    }
    uint32_t group = s->tiebreak < s->tiebreak_cap ? tie_group(s) : 0;
    if (group) {
        seat_tables(s, group, auto_tables(eu_popcount32(group)));
        s->tiebreak++;
        s->hand++;
        start_hand(s);
        return;
    }
    s->over = 1;
}

/* A seat has played its last card (§7.2 step 5). Returns true when that
 * ended the table's hand (only one seat holds cards); the flow has then
 * moved on to the next table, hand or the end. */
static bool go_out(bombs_state *s, bombs_table *tb, int seat)
{
    s->place[seat] = ++tb->n_out;
    push_table(s, tb, JA_BOMBS_EV_OUT, seat, s->place[seat]);
    if (holders(s, tb) > 1)
        return false;
    int knave = 0;
    for (int k = 0; k < tb->size; k++)
        if (s->count[tb->chair[k]] > 0)
            knave = tb->chair[k];
    s->place[knave] = ++tb->n_out;
    push_table(s, tb, JA_BOMBS_EV_KNAVE, knave, s->place[knave]);
    tb->stage = JA_BOMBS_STAGE_IDLE;
    tb->actor = tb->turn = NONE;
    if (s->cur + 1 < s->n_tables) {
        s->cur++;
        begin_table(s, s->cur);
    } else {
        end_hand(s);
    }
    return true;
}

/* Makes a legal play (lead, follow or interrupt) and everything that
 * follows it up to the next decision (§7.2). */
static void do_play(bombs_state *s, bombs_table *tb, int seat, uint32_t code, bool out_of_turn)
{
    ja_bombs_play p;
    int k = 1;
    ja_bombs_play_decode(code, &p);
    const uint32_t ranks = play_ranks(&p, &k);
    take_play(s, tb, seat, ranks, k);
    push_table(s, tb, out_of_turn ? JA_BOMBS_EV_INTERRUPT : JA_BOMBS_EV_PLAY, seat, code);
    tb->top_form = p.form;
    tb->top_rank = p.rank;
    tb->top_len = p.len;
    tb->top_owner = (uint8_t)seat;
    tb->passes = 0;
    if (s->count[seat] == 0 && go_out(s, tb, seat))
        return;
    if (p.form == JA_BOMBS_FORM_SUPER)
        end_trick(s, tb); /* nothing beats it (#15) */
    else
        open_turn(s, tb, next_holder(s, tb, seat));
}

/* The Knave shows his highest card (E2): it is known to be his, and his
 * other cards are no higher. The Master accepts or refuses it (E3). */
static void offer(bombs_state *s, bombs_table *tb)
{
    int k = tb->knave, rc = highest_rank(s->cards[k]);
    tb->offer = (uint8_t)rc;
    s->known[k][rc]++;
    s->absent[k] |= ranks_above(rc);
    push_table(s, tb, JA_BOMBS_EV_OFFER, k, (unsigned)rc);
    tb->stage = JA_BOMBS_STAGE_ACCEPT;
    tb->actor = tb->master;
}

/* Deals table u's hand from deck (top first): one card at a time from the
 * dealer counter-clockwise (§5), then the exchange or the 3 of clubs lead. */
static void deal_from(bombs_state *s, int u, int dealer, const uint8_t *deck)
{
    bombs_table *tb = &s->t[u];
    for (int k = 0; k < tb->size; k++) {
        clear_seat(s, tb->chair[k]);
        s->ev_mark[tb->chair[k]] = s->ev_count[tb->chair[k]];
    }
    clear_table(tb);
    tb->dealer = (uint8_t)dealer;
    int dc = s->seat_chair[dealer], m = tb->size;
    for (int i = 0; i < N_CARDS; i++) {
        int o = tb->chair[((dc - i) % m + m) % m];
        s->cards[o] |= UINT64_C(1) << deck[i];
        s->count[o]++;
    }
    push_table(s, tb, JA_BOMBS_EV_DEAL, dealer, s->hand);
    if (exchange_hand(s)) {
        tb->stage = JA_BOMBS_STAGE_REVOLT;
        tb->actor = tb->knave;
        return;
    }
    for (int k = 0; k < m; k++)
        if ((s->cards[tb->chair[k]] >> ID_3C) & 1u)
            tb->club3 = tb->chair[k];
    start_lead(tb, tb->club3);
}

/* Starts table u's hand: the dealer (hand 1 and tiebreak hands: drawn; else
 * the arriving Knave) and the shuffle, each from its own (hand, table)
 * stream (§11). */
static void begin_table(bombs_state *s, int u)
{
    bombs_table *tb = &s->t[u];
    uint64_t index = ((uint64_t)s->hand << 8) | (uint64_t)u;
    int dealer = tb->knave;
    ja_rng r;
    if (!exchange_hand(s)) {
        ja_rng_stream(&r, s->seed, JA_STREAM_MISC, index);
        dealer = tb->chair[ja_rng_below(&r, tb->size)];
    }
    uint8_t deck[N_CARDS];
    for (int i = 0; i < N_CARDS; i++)
        deck[i] = (uint8_t)i;
    ja_rng_stream(&r, s->seed, JA_STREAM_DEAL, index);
    ja_shuffle_u8(&r, deck, N_CARDS);
    deal_from(s, u, dealer, deck);
}

/* ---- Legal actions ---------------------------------------------------------------------------- */

/* Writes base + r for every rank r of set, lowest first, at out + n;
 * returns the new count. */
static uint32_t emit(uint32_t *out, uint32_t n, uint32_t set, uint32_t base)
{
    for (; set; set &= set - 1)
        out[n++] = base + (uint32_t)__builtin_ctz(set);
    return n;
}

/* The plays that beat the top play (§4): the same form higher (unless only
 * interrupts are wanted), the completion, bombs, big bombs, the super bomb;
 * in code order. Returns the count written to out. */
static uint32_t gen_beats(const bombs_table *tb, const rank_sets *h, bool interrupts_only,
                          uint32_t *out)
{
    uint32_t n = 0;
    const int f = tb->top_form, t = tb->top_rank, L = tb->top_len;
    const uint32_t above = ranks_above(t);
    if (!interrupts_only) {
        switch (f) {
        case JA_BOMBS_FORM_SINGLE: n = emit(out, n, h->at[1] & above, JA_BOMBS_SINGLE(0)); break;
        case JA_BOMBS_FORM_PAIR: n = emit(out, n, h->at[2] & above, JA_BOMBS_PAIR(0)); break;
        case JA_BOMBS_FORM_RUN:
            n = emit(out, n, run_starts(h->at[1], L) & above, JA_BOMBS_RUN(0, L));
            break;
        case JA_BOMBS_FORM_DRUN:
            n = emit(out, n, run_starts(h->at[2], L) & above, JA_BOMBS_DRUN(0, L));
            break;
        default: break;
        }
    }
    if (f == JA_BOMBS_FORM_SINGLE && t <= R_LAST_SET && ((h->at[2] >> t) & 1u))
        out[n++] = JA_BOMBS_COMPLETE(t);
    if (f != JA_BOMBS_FORM_BIG && f != JA_BOMBS_FORM_SUPER)
        n = emit(out, n, h->at[3] & (f == JA_BOMBS_FORM_BOMB ? above : ~0u), JA_BOMBS_BOMB(0));
    if (f != JA_BOMBS_FORM_SUPER) {
        n = emit(out, n, h->at[4] & (f == JA_BOMBS_FORM_BIG ? above : ~0u), JA_BOMBS_BIG(0));
        if (has_jokers(h))
            out[n++] = JA_BOMBS_SUPER;
    }
    return n;
}

/* Writes base + L for every length L >= 3 of a run whose ranks are each
 * in set; returns the new count. */
static uint32_t emit_run_lengths(uint32_t *out, uint32_t n, uint32_t set, uint32_t base)
{
    uint32_t m = run_starts(set, 3);
    for (uint32_t L = 3; m; L++, m &= m >> 1)
        out[n++] = base + L;
    return n;
}

/* L1: one entry per kind the seat can lead (§7.1). */
static uint32_t gen_lead_kinds(const rank_sets *h, uint32_t *out)
{
    uint32_t n = 0;
    out[n++] = JA_BOMBS_LEAD_SINGLE;
    if (h->at[2])
        out[n++] = JA_BOMBS_LEAD_PAIR;
    n = emit_run_lengths(out, n, h->at[1], JA_BOMBS_LEAD_RUN(0));
    n = emit_run_lengths(out, n, h->at[2], JA_BOMBS_LEAD_DRUN(0));
    if (h->at[3])
        out[n++] = JA_BOMBS_LEAD_BOMB;
    if (h->at[4])
        out[n++] = JA_BOMBS_LEAD_BIG;
    if (has_jokers(h))
        out[n++] = JA_BOMBS_LEAD_SUPER;
    return n;
}

/* L2: every lowest rank for the kind chosen in L1. */
static uint32_t gen_lead_ranks(const bombs_table *tb, const rank_sets *h, uint32_t *out)
{
    const int L = tb->lead_len;
    switch (tb->lead_form) {
    case JA_BOMBS_FORM_SINGLE: return emit(out, 0, h->at[1], JA_BOMBS_SINGLE(0));
    case JA_BOMBS_FORM_PAIR: return emit(out, 0, h->at[2], JA_BOMBS_PAIR(0));
    case JA_BOMBS_FORM_BOMB: return emit(out, 0, h->at[3], JA_BOMBS_BOMB(0));
    case JA_BOMBS_FORM_BIG: return emit(out, 0, h->at[4], JA_BOMBS_BIG(0));
    case JA_BOMBS_FORM_RUN: return emit(out, 0, run_starts(h->at[1], L), JA_BOMBS_RUN(0, L));
    case JA_BOMBS_FORM_DRUN: return emit(out, 0, run_starts(h->at[2], L), JA_BOMBS_DRUN(0, L));
    default: out[0] = JA_BOMBS_SUPER; return 1;
    }
}

/* The legal codes of seat now, sorted; 0 for a seat not asked. */
static uint32_t gen_legal(const bombs_state *s, int seat, uint32_t *out)
{
    if (s->over || seat < 0 || seat >= s->n || s->seat_table[seat] != s->cur)
        return 0;
    const bombs_table *tb = &s->t[s->cur];
    if (tb->stage == JA_BOMBS_STAGE_WINDOW ? !((window_seats(s, tb) >> seat) & 1u)
                                           : seat != tb->actor)
        return 0;
    const rank_sets h = sets_of(s->cards[seat]);
    uint32_t n = 0;
    switch (tb->stage) {
    case JA_BOMBS_STAGE_REVOLT:
        if (has_jokers(&h))
            out[n++] = JA_BOMBS_REVOLT;
        out[n++] = JA_BOMBS_NO_REVOLT;
        break;
    case JA_BOMBS_STAGE_ACCEPT:
        out[n++] = JA_BOMBS_ACCEPT;
        out[n++] = JA_BOMBS_REFUSE;
        break;
    case JA_BOMBS_STAGE_REQUEST:
        n = emit(out, n, ~(uint32_t)tb->requested & ((2u << R_LAST_REQUEST) - 1),
                 JA_BOMBS_REQUEST(0));
        out[n++] = JA_BOMBS_NO_REQUEST;
        break;
    case JA_BOMBS_STAGE_RETURN: n = emit(out, n, h.at[1], JA_BOMBS_RETURN(0)); break;
    case JA_BOMBS_STAGE_LEAD: n = gen_lead_kinds(&h, out); break;
    case JA_BOMBS_STAGE_LEAD_RANK: n = gen_lead_ranks(tb, &h, out); break;
    case JA_BOMBS_STAGE_FOLLOW:
        n = gen_beats(tb, &h, false, out);
        out[n++] = JA_BOMBS_PASS;
        break;
    case JA_BOMBS_STAGE_WINDOW:
        n = gen_beats(tb, &h, true, out);
        out[n++] = JA_BOMBS_DECLINE;
        break;
    default: break;
    }
    return n;
}

/* Whether rank r is in set. */
static bool in_set(uint32_t set, int r) { return (set >> r) & 1u; }

/* Whether the ranks r .. r + len - 1 are each in set. */
static bool holds_run(uint32_t set, int r, int len)
{
    const uint32_t want = ((1u << len) - 1) << r;
    return (set & want) == want;
}

/* Whether code is in gen_beats(tb, h, interrupts_only): the same
 * conditions, for the one code. */
static bool beats_code(const bombs_table *tb, const rank_sets *h, bool interrupts_only,
                       uint32_t code)
{
    const int f = tb->top_form, t = tb->top_rank, L = tb->top_len;
    if (code == JA_BOMBS_SUPER)
        return f != JA_BOMBS_FORM_SUPER && has_jokers(h);
    if (code >= JA_BOMBS_BIG(0) && code <= JA_BOMBS_BIG(R_LAST_SET)) {
        int r = (int)(code - JA_BOMBS_BIG(0));
        return f != JA_BOMBS_FORM_SUPER && r >= (f == JA_BOMBS_FORM_BIG ? t + 1 : 0) &&
               in_set(h->at[4], r);
    }
    if (code >= JA_BOMBS_BOMB(0) && code <= JA_BOMBS_BOMB(R_LAST_SET)) {
        int r = (int)(code - JA_BOMBS_BOMB(0));
        return f != JA_BOMBS_FORM_BIG && f != JA_BOMBS_FORM_SUPER &&
               r >= (f == JA_BOMBS_FORM_BOMB ? t + 1 : 0) && in_set(h->at[3], r);
    }
    if (code == JA_BOMBS_COMPLETE(t))
        return f == JA_BOMBS_FORM_SINGLE && t <= R_LAST_SET && in_set(h->at[2], t);
    if (interrupts_only)
        return false;
    switch (f) {
    case JA_BOMBS_FORM_SINGLE:
        return code > JA_BOMBS_SINGLE(t) && code < JA_BOMBS_SINGLE(RANKS) &&
               in_set(h->at[1], (int)(code - JA_BOMBS_SINGLE(0)));
    case JA_BOMBS_FORM_PAIR:
        return code > JA_BOMBS_PAIR(t) && code <= JA_BOMBS_PAIR(R_LAST_SET) &&
               in_set(h->at[2], (int)(code - JA_BOMBS_PAIR(0)));
    case JA_BOMBS_FORM_RUN:
    case JA_BOMBS_FORM_DRUN: {
        const bool single = f == JA_BOMBS_FORM_RUN;
        const uint32_t first = single ? JA_BOMBS_RUN(0, L) : JA_BOMBS_DRUN(0, L);
        if (code <= first + (uint32_t)t || code > first + (uint32_t)(R_LAST_RUN - (L - 1)))
            return false;
        return holds_run(h->at[single ? 1 : 2], (int)(code - first), L);
    }
    default: return false;
    }
}

/* Whether code is in gen_lead_kinds (L1). */
static bool lead_kind_code(const rank_sets *h, uint32_t code)
{
    if (code == JA_BOMBS_LEAD_SINGLE)
        return true;
    if (code == JA_BOMBS_LEAD_PAIR)
        return h->at[2] != 0;
    if (code >= JA_BOMBS_LEAD_RUN(3) && code <= JA_BOMBS_LEAD_RUN(JA_BOMBS_MAX_RUN))
        return run_starts(h->at[1], (int)(code - JA_BOMBS_LEAD_RUN(0))) != 0;
    if (code >= JA_BOMBS_LEAD_DRUN(3) && code <= JA_BOMBS_LEAD_DRUN(JA_BOMBS_MAX_RUN))
        return run_starts(h->at[2], (int)(code - JA_BOMBS_LEAD_DRUN(0))) != 0;
    if (code == JA_BOMBS_LEAD_BOMB)
        return h->at[3] != 0;
    if (code == JA_BOMBS_LEAD_BIG)
        return h->at[4] != 0;
    return code == JA_BOMBS_LEAD_SUPER && has_jokers(h);
}

/* Whether code is in gen_lead_ranks (L2). */
static bool lead_rank_code(const bombs_table *tb, const rank_sets *h, uint32_t code)
{
    const int L = tb->lead_len;
    switch (tb->lead_form) {
    case JA_BOMBS_FORM_SINGLE:
        return code >= JA_BOMBS_SINGLE(0) && code < JA_BOMBS_SINGLE(RANKS) &&
               in_set(h->at[1], (int)(code - JA_BOMBS_SINGLE(0)));
    case JA_BOMBS_FORM_PAIR:
        return code >= JA_BOMBS_PAIR(0) && code <= JA_BOMBS_PAIR(R_LAST_SET) &&
               in_set(h->at[2], (int)(code - JA_BOMBS_PAIR(0)));
    case JA_BOMBS_FORM_BOMB:
        return code >= JA_BOMBS_BOMB(0) && code <= JA_BOMBS_BOMB(R_LAST_SET) &&
               in_set(h->at[3], (int)(code - JA_BOMBS_BOMB(0)));
    case JA_BOMBS_FORM_BIG:
        return code >= JA_BOMBS_BIG(0) && code <= JA_BOMBS_BIG(R_LAST_SET) &&
               in_set(h->at[4], (int)(code - JA_BOMBS_BIG(0)));
    case JA_BOMBS_FORM_RUN:
    case JA_BOMBS_FORM_DRUN: {
        const bool single = tb->lead_form == JA_BOMBS_FORM_RUN;
        const uint32_t first = single ? JA_BOMBS_RUN(0, L) : JA_BOMBS_DRUN(0, L);
        if (code < first || code > first + (uint32_t)(R_LAST_RUN - (L - 1)))
            return false;
        return holds_run(h->at[single ? 1 : 2], (int)(code - first), L);
    }
    default: return code == JA_BOMBS_SUPER;
    }
}

/* Whether code is in gen_legal(s, seat), for a seat that is asked (apply
 * checked the seats against to_act): the same conditions for the one code,
 * without the list, which would be generated a second time at every step
 * (the caller has just had it from legal()). The property suite
 * (tests/rules/test_all_games.c) checks every code below its scan bound
 * against the list. */
static bool is_legal(const bombs_state *s, int seat, uint32_t code)
{
    const bombs_table *tb = &s->t[s->cur];
    const uint64_t cards = s->cards[seat];
    rank_sets h;
    switch (tb->stage) {
    case JA_BOMBS_STAGE_REVOLT:
        h = sets_of(cards);
        return code == JA_BOMBS_NO_REVOLT || (code == JA_BOMBS_REVOLT && has_jokers(&h));
    case JA_BOMBS_STAGE_ACCEPT: return code == JA_BOMBS_ACCEPT || code == JA_BOMBS_REFUSE;
    case JA_BOMBS_STAGE_REQUEST:
        return code == JA_BOMBS_NO_REQUEST ||
               (code >= JA_BOMBS_REQUEST(0) && code <= JA_BOMBS_REQUEST(R_LAST_REQUEST) &&
                !((tb->requested >> (code - JA_BOMBS_REQUEST(0))) & 1u));
    case JA_BOMBS_STAGE_RETURN:
        return code >= JA_BOMBS_RETURN(0) && code < JA_BOMBS_RETURN(RANKS) &&
               (cards & rank_bits((int)(code - JA_BOMBS_RETURN(0)))) != 0;
    case JA_BOMBS_STAGE_LEAD: h = sets_of(cards); return lead_kind_code(&h, code);
    case JA_BOMBS_STAGE_LEAD_RANK: h = sets_of(cards); return lead_rank_code(tb, &h, code);
    case JA_BOMBS_STAGE_FOLLOW:
        if (code == JA_BOMBS_PASS)
            return true;
        h = sets_of(cards);
        return beats_code(tb, &h, false, code);
    case JA_BOMBS_STAGE_WINDOW:
        if (code == JA_BOMBS_DECLINE)
            return true;
        h = sets_of(cards);
        return beats_code(tb, &h, true, code);
    default: return false;
    }
}

static uint32_t bombs_to_act(const void *st)
{
    const bombs_state *s = st;
    if (s->over)
        return 0;
    const bombs_table *tb = &s->t[s->cur];
    return tb->stage == JA_BOMBS_STAGE_WINDOW ? window_seats(s, tb) : UINT32_C(1) << tb->actor;
}

static uint32_t bombs_legal(const void *st, int seat, ja_action *out, uint32_t cap)
{
    uint32_t l[MAX_LEGAL];
    uint32_t n = gen_legal(st, seat, l);
    if (n > cap)
        n = cap;
    for (uint32_t i = 0; i < n; i++)
        out[i].code = l[i];
    return n;
}

/* Spec §12: SINGLE, the lowest rank, PASS, DECLINE, NO_REVOLT, ACCEPT,
 * NO_REQUEST, the lowest rank held. Meaningful for a seat being asked. */
static ja_action bombs_default_action(const void *st, int seat)
{
    const bombs_state *s = st;
    uint32_t l[MAX_LEGAL];
    uint32_t n = gen_legal(s, seat, l);
    ja_action a = {JA_BOMBS_PASS};
    if (n == 0)
        return a;
    switch (s->t[s->cur].stage) {
    case JA_BOMBS_STAGE_REVOLT: a.code = JA_BOMBS_NO_REVOLT; break;
    case JA_BOMBS_STAGE_ACCEPT: a.code = JA_BOMBS_ACCEPT; break;
    case JA_BOMBS_STAGE_REQUEST: a.code = JA_BOMBS_NO_REQUEST; break;
    case JA_BOMBS_STAGE_LEAD: a.code = JA_BOMBS_LEAD_SINGLE; break;
    case JA_BOMBS_STAGE_WINDOW: a.code = JA_BOMBS_DECLINE; break;
    case JA_BOMBS_STAGE_FOLLOW: a.code = JA_BOMBS_PASS; break;
    default: a.code = l[0]; break; /* RETURN, LEAD_RANK: the lowest rank */
    }
    return a;
}

/* ---- Apply ------------------------------------------------------------------------------------ */

/* The lead's first step fixes the kind (and length) of the play. */
static void choose_kind(bombs_table *tb, uint32_t code)
{
    tb->stage = JA_BOMBS_STAGE_LEAD_RANK;
    tb->lead_len = 0;
    if (code == JA_BOMBS_LEAD_SINGLE) {
        tb->lead_form = JA_BOMBS_FORM_SINGLE;
    } else if (code == JA_BOMBS_LEAD_PAIR) {
        tb->lead_form = JA_BOMBS_FORM_PAIR;
    } else if (code >= JA_BOMBS_LEAD_RUN(3) && code <= JA_BOMBS_LEAD_RUN(JA_BOMBS_MAX_RUN)) {
        tb->lead_form = JA_BOMBS_FORM_RUN;
        tb->lead_len = (uint8_t)(code - JA_BOMBS_LEAD_RUN(0));
    } else if (code >= JA_BOMBS_LEAD_DRUN(3) && code <= JA_BOMBS_LEAD_DRUN(JA_BOMBS_MAX_RUN)) {
        tb->lead_form = JA_BOMBS_FORM_DRUN;
        tb->lead_len = (uint8_t)(code - JA_BOMBS_LEAD_DRUN(0));
    } else if (code == JA_BOMBS_LEAD_BOMB) {
        tb->lead_form = JA_BOMBS_FORM_BOMB;
    } else if (code == JA_BOMBS_LEAD_BIG) {
        tb->lead_form = JA_BOMBS_FORM_BIG;
    } else {
        tb->lead_form = JA_BOMBS_FORM_SUPER;
    }
}

/* A pass in turn (§7.2 step 3): the trick ends once every other seat
 * holding cards has passed since the top play; else the next seat is due,
 * after a window when interrupt_after_pass is on. */
static void do_pass(bombs_state *s, bombs_table *tb, int seat)
{
    push_table(s, tb, JA_BOMBS_EV_PASS, seat, 0);
    tb->passes++;
    int w = tb->top_owner;
    if (tb->passes >= holders(s, tb) - (s->count[w] > 0)) {
        end_trick(s, tb);
        return;
    }
    int n = next_holder(s, tb, seat);
    if (s->after_pass == AFTER_ON) {
        open_turn(s, tb, n);
    } else {
        tb->stage = JA_BOMBS_STAGE_FOLLOW;
        tb->turn = tb->actor = (uint8_t)n;
    }
}

/* The exchange step E3-E5 or the revolt E1, for the one seat deciding. */
static void exchange_step(bombs_state *s, bombs_table *tb, uint32_t code)
{
    int k = tb->knave, m = tb->master;
    if (code == JA_BOMBS_REVOLT) {
        s->known[k][JA_BOMBS_R_XB] = s->known[k][JA_BOMBS_R_XR] = 1;
        push_table(s, tb, JA_BOMBS_EV_REVOLT, k, 0);
        start_lead(tb, k);
    } else if (code == JA_BOMBS_NO_REVOLT) {
        offer(s, tb);
    } else if (code == JA_BOMBS_ACCEPT) {
        give(s, k, m, tb->offer);
        push_table(s, tb, JA_BOMBS_EV_ACCEPT, m, tb->offer);
        tb->stage = tb->offer >= JA_BOMBS_R_XB ? JA_BOMBS_STAGE_REQUEST : JA_BOMBS_STAGE_RETURN;
        tb->actor = (uint8_t)(tb->offer >= JA_BOMBS_R_XB ? k : m);
    } else if (code == JA_BOMBS_REFUSE) {
        push_table(s, tb, JA_BOMBS_EV_REFUSE, m, tb->offer);
        start_lead(tb, m);
    } else if (code == JA_BOMBS_NO_REQUEST) {
        tb->stage = JA_BOMBS_STAGE_RETURN;
        tb->actor = (uint8_t)m;
    } else if (code >= JA_BOMBS_REQUEST(0) && code <= JA_BOMBS_REQUEST(R_LAST_REQUEST)) {
        int r = (int)(code - JA_BOMBS_REQUEST(0));
        if (s->cards[m] & rank_bits(r)) {
            give(s, m, k, r);
            push_table(s, tb, JA_BOMBS_EV_REQUEST_MET, k, (unsigned)r);
            start_lead(tb, k);
        } else {
            tb->requested |= (uint16_t)(1u << r);
            s->absent[m] |= (uint16_t)(1u << r);
            push_table(s, tb, JA_BOMBS_EV_REQUEST, k, (unsigned)r);
        }
    } else {
        int r = (int)(code - JA_BOMBS_RETURN(0));
        give(s, m, k, r);
        push_table(s, tb, JA_BOMBS_EV_RETURN, m, (unsigned)r);
        start_lead(tb, k);
    }
}

/* Checks every answer, then resolves. A window goes to the first seat in
 * priority order that interrupts: clockwise from the seat after n, with w
 * (the owner of the top play) taken out of its place and put last (§7.3,
 * #12). After a play n is the seat after w, so clockwise alone would put w
 * last; after a pass (interrupt_after_pass) n is further on and it would
 * not. Arrival order plays no part. */
static int bombs_apply(void *st, uint32_t seats, const ja_action *by_seat)
{
    bombs_state *s = st;
    if (!by_seat)
        return JA_EINVAL;
    uint32_t mask = bombs_to_act(s);
    if (mask == 0 || seats != mask)
        return JA_EILLEGAL;
    for (uint32_t m = mask; m; m &= m - 1)
        if (!is_legal(s, __builtin_ctz(m), by_seat[__builtin_ctz(m)].code))
            return JA_EILLEGAL;
    bombs_table *tb = &s->t[s->cur];
    if (tb->stage == JA_BOMBS_STAGE_WINDOW) {
        uint32_t bids = 0; /* the seats that interrupt: most windows have none */
        for (uint32_t m = mask; m; m &= m - 1)
            if (by_seat[__builtin_ctz(m)].code != JA_BOMBS_DECLINE)
                bids |= m & (~m + 1);
        int c = s->seat_chair[tb->turn], w = tb->top_owner;
        for (int k = 1; bids && k <= tb->size; k++) {
            int o = k < tb->size ? chair_after(tb, c, k) : w;
            if (k < tb->size && o == w)
                continue;
            if ((bids >> o) & 1u) {
                do_play(s, tb, o, by_seat[o].code, true);
                return JA_OK;
            }
        }
        tb->stage = JA_BOMBS_STAGE_FOLLOW;
        tb->actor = tb->turn;
        return JA_OK;
    }
    int seat = tb->actor;
    uint32_t code = by_seat[seat].code;
    switch (tb->stage) {
    case JA_BOMBS_STAGE_LEAD: choose_kind(tb, code); break;
    case JA_BOMBS_STAGE_LEAD_RANK: do_play(s, tb, seat, code, false); break;
    case JA_BOMBS_STAGE_FOLLOW:
        if (code == JA_BOMBS_PASS)
            do_pass(s, tb, seat);
        else
            do_play(s, tb, seat, code, false);
        break;
    default: exchange_step(s, tb, code); break;
    }
    return JA_OK;
}

/* ---- Options and setup -------------------------------------------------------------------------- */

static const ja_option_spec options[] = {BOMBS_OPTIONS(EU_OPT_SPEC) EU_OPT_END};
EU_OPT_CHECK(options);

/* The number of tables for option value v (its ENUM index: 0 = auto, k = k
 * tables) and n players, or 0 when some table would have fewer than 3 or
 * more than 5 seats. */
static int resolve_tables(int32_t v, uint32_t n)
{
    int t = v == 0 ? auto_tables((int)n) : (int)v;
    return t >= 1 && t <= MAXT && 3u * (uint32_t)t <= n && n <= 5u * (uint32_t)t ? t : 0;
}

static int bombs_resolve_options(ja_options *o, uint32_t n, char *err, size_t cap)
{
    if (n < 3 || n > MAXS) {
        snprintf(err, cap, "bombs is played by 3 to %d seats, not %u", MAXS, (unsigned)n);
        return JA_EINVAL;
    }
    int t = resolve_tables(o->value[OPT_TABLES], n);
    if (t == 0) {
        int32_t v = o->value[OPT_TABLES];
        int most = 5 * (int)v < MAXS ? 5 * (int)v : MAXS; /* the game's own limit too */
        snprintf(err, cap, "tables=%d needs %d to %d players (tables of 3 to 5 seats), not %u",
                 (int)v, 3 * (int)v, most, (unsigned)n);
        return JA_EINVAL;
    }
    o->value[OPT_TABLES] = t;
    return JA_OK;
}

static int bombs_setup(void *st, const ja_options *o, uint32_t n, uint64_t seed)
{
    bombs_state *s = st;
    if (n < 3 || n > MAXS)
        return JA_EINVAL;
    int32_t v[OPT_COUNT];
    eu_option_values(options, o, n, v, OPT_COUNT);
    int tables = resolve_tables(v[OPT_TABLES], n);
    if (tables == 0 || v[OPT_HANDS] < 1 || v[OPT_HANDS] > MAX_HANDS || v[OPT_OUT_OF_TURN] < 0 ||
        v[OPT_OUT_OF_TURN] > 1 || v[OPT_AFTER_PASS] < 0 || v[OPT_AFTER_PASS] > 1 ||
        v[OPT_TIEBREAK] < 0 || v[OPT_TIEBREAK] > MAX_TIEBREAK)
        return JA_EINVAL;
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = (uint8_t)n;
    s->hands = (uint16_t)v[OPT_HANDS];
    s->out_of_turn = (uint8_t)v[OPT_OUT_OF_TURN];
    s->after_pass = (uint8_t)v[OPT_AFTER_PASS];
    s->tables = (uint8_t)tables;
    s->tiebreak_cap = (uint8_t)v[OPT_TIEBREAK];
    seat_tables(s, (UINT32_C(1) << n) - 1, tables);
    start_hand(s);
    return JA_OK;
}

/* Re-deals the current table's hand from a stacked deck (tests only):
 * `first` is the dealer, a seat of that table (in a hand with an exchange it
 * must be the arriving Knave, who deals); cards[0] is dealt first, to the
 * dealer, then counter-clockwise; card identities 0..53, each at most once;
 * cards not named follow in ascending id order. The table's hand restarts
 * (its seats' events since its deal are dropped); scores and other tables
 * are kept. */
static int bombs_test_deal(void *st, int first, const uint8_t *cards, uint32_t n)
{
    bombs_state *s = st;
    if (s->over || first < 0 || first >= s->n || s->seat_table[first] != s->cur)
        return JA_EINVAL;
    bombs_table *tb = &s->t[s->cur];
    if (exchange_hand(s) && first != tb->knave)
        return JA_EINVAL;
    uint8_t deck[N_CARDS];
    if (eu_stack_deck(cards, n, N_CARDS, 1, deck) < 0)
        return JA_EINVAL;
    for (int c = 0; c < tb->size; c++)
        s->ev_count[tb->chair[c]] = s->ev_mark[tb->chair[c]];
    deal_from(s, s->cur, first, deck);
    return JA_OK;
}

static const ja_ext_test_deal TEST_DEAL = {bombs_test_deal};

/* ---- Observation ------------------------------------------------------------------------------------ */

#define EU_OBS_T ja_bombs_obs
static const ja_field obs_fields[] = {JA_BOMBS_OBS_FIELDS(EU_FIELD_S, EU_FIELD_A)};

/* The scalars of seat's table (u, NONE for a seat sitting out) that change
 * with no event of seat's: who decides and who is due, the leader's L1
 * choice (shown to the leader only), the top play, the passes, club3. A
 * seat sitting out sees none of them; every seat sees OVER at the end and
 * IDLE while its table is not the one playing. */
static void observe_turn(const bombs_state *s, int seat, int u, ja_bombs_obs *o)
{
    o->stage = s->over ? JA_BOMBS_STAGE_OVER : JA_BOMBS_STAGE_IDLE;
    o->actor = o->turn_seat = o->top_owner = o->club3 = NONE;
    o->lead_form = o->lead_len = o->top_form = o->top_rank = o->top_len = o->passes = 0;
    if (u == NONE)
        return;
    const bombs_table *tb = &s->t[u];
    if (!s->over && s->cur == u) {
        o->stage = tb->stage;
        o->actor = tb->actor;
        o->turn_seat = tb->turn;
        if (tb->stage == JA_BOMBS_STAGE_LEAD_RANK) {
            if (tb->actor == seat) {
                o->lead_form = tb->lead_form;
                o->lead_len = tb->lead_len;
            } else {
                o->stage = JA_BOMBS_STAGE_LEAD;
            }
        }
    }
    o->top_form = tb->top_form;
    o->top_rank = tb->top_rank;
    o->top_len = tb->top_len;
    o->top_owner = tb->top_owner;
    o->passes = tb->passes;
    o->club3 = tb->club3;
}

/* The public record of seat p of the observer's table. */
static void observe_seat(const bombs_state *s, int p, ja_bombs_obs *o)
{
    o->count[p] = s->count[p];
    o->place[p] = s->place[p];
    o->absent[p] = s->absent[p];
    memcpy(o->known + RANKS * p, s->known[p], RANKS);
}

/* The observer's own cards, into a hand of zeros. */
static void observe_hand(const bombs_state *s, int seat, ja_bombs_obs *o)
{
    for (uint64_t m = s->cards[seat]; m; m &= m - 1)
        o->hand[__builtin_ctzll(m)] = 1;
}

/* The events of seat's ring (e, seq of them) into o, exactly as
 * EU_EVENTS_OUT writes them, and cheaper once the ring has wrapped (seq >=
 * N_EVENTS, most of a match): each column is then the ring's column turned
 * by seq % N_EVENTS, read here from a doubled copy by copies of constant
 * size, which the compiler makes a few vector moves. EU_EVENTS_OUT's two
 * copies of variable size per column become library calls or `rep movs`,
 * whose start-up costs more than the copying. */
static void events_out(ja_bombs_obs *o, const bombs_ring *e, uint32_t seq)
{
    if (seq < N_EVENTS) {
        EU_EVENTS_OUT(o, e, seq, N_EVENTS, ev_kind, ev_seat, ev_arg);
        return;
    }
    const uint32_t first = seq % N_EVENTS;
    uint8_t kind[2 * N_EVENTS], who[2 * N_EVENTS];
    uint16_t arg[2 * N_EVENTS];
    memcpy(kind, e->ev_kind, N_EVENTS);
    memcpy(kind + N_EVENTS, e->ev_kind, N_EVENTS);
    memcpy(who, e->ev_seat, N_EVENTS);
    memcpy(who + N_EVENTS, e->ev_seat, N_EVENTS);
    memcpy(arg, e->ev_arg, sizeof e->ev_arg);
    memcpy(arg + N_EVENTS, e->ev_arg, sizeof e->ev_arg);
    memcpy(o->ev_kind, kind + first, N_EVENTS);
    memcpy(o->ev_seat, who + first, N_EVENTS);
    memcpy(o->ev_arg, arg + first, sizeof o->ev_arg);
    o->event_seq = seq;
    eu_ring_seqs(o->ev_seq, seq, N_EVENTS);
}

/* What every seat sees alike: the options, the hand, the layout of every
 * table with its Master and Knave, and per seat its place in the layout,
 * its published score and its last place. */
static void observe_common(const bombs_state *s, ja_bombs_obs *o)
{
    o->hands = s->hands;
    o->out_of_turn = s->out_of_turn == OOT_ON;
    o->interrupt_after_pass = s->after_pass == AFTER_ON;
    o->tables = s->tables;
    o->tiebreak_hands = s->tiebreak_cap;
    o->hand_no = s->hand;
    o->tiebreak = s->tiebreak;
    o->n_tables = s->n_tables;
    for (int u = 0; u < MAXT; u++) {
        o->table_master[u] = u < s->n_tables ? s->t[u].master : NONE;
        o->table_knave[u] = u < s->n_tables ? s->t[u].knave : NONE;
    }
    const int n = s->n;
    for (int i = 0; i < n; i++) {
        o->seat_table[i] = s->seat_table[i];
        o->seat_chair[i] = s->seat_chair[i];
        o->score[i] = s->score[i];
        o->last_place[i] = s->last_place[i];
    }
}

/* Table u (NONE: none) as seat sees it (seat -1: as a seat that is not
 * its actor): observe_turn, the dealer, the exchange's offer and requests,
 * the ranks played, and the public record of each of its seats. */
static void observe_table(const bombs_state *s, int seat, int u, ja_bombs_obs *o)
{
    o->table = (uint8_t)u;
    observe_turn(s, seat, u, o);
    o->offer = o->dealer = NONE;
    memset(o->table_seats, NONE, sizeof o->table_seats);
    if (u == NONE)
        return;
    const bombs_table *tb = &s->t[u];
    o->dealer = tb->dealer;
    o->offer = tb->offer;
    o->requested = tb->requested;
    memcpy(o->played, tb->played, RANKS);
    for (int k = 0; k < tb->size; k++) {
        int p = tb->chair[k];
        o->table_seats[k] = (uint8_t)p;
        observe_seat(s, p, o);
    }
}

/* Everything the seat may know, nothing more (§10): the options, the
 * layout of every table and the published results; of its own table the
 * public play (counts, the top play, the exchange, what is known of each
 * hand, the ranks played) and its own cards; its own ring of events. Never
 * other hands, other tables' play before it is published, the L1 choice of
 * another seat, whether another seat was forced in a window, or the future.
 * A seat whose table is not playing now sees its table IDLE. */
static void bombs_observe(const void *st, int seat, void *obs)
{
    const bombs_state *s = st;
    ja_bombs_obs *o = obs;
    if (!eu_obs_begin(o, sizeof *o, seat, s->n, &o->seat, &o->n_seats))
        return;
    observe_common(s, o);
    observe_table(s, seat, s->seat_table[seat], o);
    observe_hand(s, seat, o);
    events_out(o, &s->ev[seat], s->ev_count[seat]);
}

/* The table every seat sits at in this hand, or NONE when there are
 * several or a seat sits out (a tiebreak hand): then no table's play is
 * seen by every seat. */
static int common_table(const bombs_state *s)
{
    if (s->n_tables != 1)
        return NONE;
    for (int i = 0; i < s->n; i++)
        if (s->seat_table[i] != 0)
            return NONE;
    return 0;
}

/* Whether every seat has seen the same events: the same count and the
 * same ring, byte for byte. Events go to a whole table or to every seat
 * (push_table, push_all), so this holds from the start of a match whose
 * seats always shared one table. */
static bool common_events(const bombs_state *s)
{
    for (int i = 1; i < s->n; i++)
        if (s->ev_count[i] != s->ev_count[0] ||
            memcmp(&s->ev[i], &s->ev[0], sizeof s->ev[0]) != 0)
            return false;
    return true;
}

/* JA_EXT_OBSERVE_PUBLIC: the part of the observation every seat sees
 * (§10): the options, the layout, Master and Knave of every table, the
 * published scores and places; when every seat sits at one table, that
 * table as a seat other than its actor sees it (never the L1 choice); and
 * the events when every seat has seen the same ones. Never a hand, nor a
 * table's play that some seat does not see. */
static void bombs_observe_public(const void *st, void *obs)
{
    const bombs_state *s = st;
    ja_bombs_obs *o = obs;
    eu_obs_public_begin(o, sizeof *o, s->n, &o->seat, &o->n_seats);
    observe_common(s, o);
    observe_table(s, -1, common_table(s), o);
    if (common_events(s))
        events_out(o, &s->ev[0], s->ev_count[0]);
}

static const ja_ext_observe_public OBSERVE_PUBLIC = {bombs_observe_public};

/* JA_EXT_OBSERVE_UPDATE: obs is seat's observation of an earlier state of
 * this match, or zeros. Most questions come in the play of a table's hand
 * (from the first lead, after the deal and the exchange, to the Knave's
 * place), and while seat's table is in it little of the observation can
 * change (apply() is all that moves a match on):
 *  - the scalars of observe_turn change with no event (a window all
 *    declined, an L1 choice): rewritten every time;
 *  - count, known and place of the table's seats, played and the own hand
 *    change only with a play (take_one) or a seat going out, each of which
 *    pushes an event to every seat of the table (PLAY, INTERRUPT, OUT); so
 *    when seat's event count has moved they are written again with the
 *    event columns, for every seat of the table (at most 5: cheaper than
 *    finding the seats the events name, whose loops vary in length and
 *    mispredict);
 *  - nothing else: absent, offer and requested change in the exchange,
 *    dealer and every record at a deal, the layout, the exchange pairs,
 *    hand_no, tiebreak, n_tables, scores and last_place when a hand ends
 *    (end_hand), the options never.
 * obs was observed in that play and st is still in it when obs is seat's
 * (seat, n_seats) and of the hand st plays (hand_no: every hand ends in
 * end_hand, which counts it or ends the match), obs shows a stage of the
 * play (LEAD .. WINDOW: seat's table was playing, past its deal and
 * exchange, which come once a hand), and seat's table is still the one
 * playing (cur: a table's hand ends with cur moving on, or in end_hand).
 * Anything else is a whole observe: a seat's first question (zeros), the
 * first after a deal, those in and just after the exchange, a seat
 * sitting out, an obs of more events than st has. */
static void bombs_observe_update(const void *st, int seat, void *obs)
{
    const bombs_state *s = st;
    ja_bombs_obs *o = obs;
    if (seat < 0 || seat >= s->n || o->seat != seat || o->n_seats != s->n ||
        o->hand_no != s->hand || s->over || o->stage < JA_BOMBS_STAGE_LEAD ||
        o->stage > JA_BOMBS_STAGE_WINDOW || s->seat_table[seat] != s->cur ||
        o->event_seq > s->ev_count[seat]) {
        bombs_observe(st, seat, obs);
        return;
    }
    const bombs_table *tb = &s->t[s->cur];
    observe_turn(s, seat, s->cur, o);
    const uint32_t seq = s->ev_count[seat];
    if (seq == o->event_seq)
        return;
    memcpy(o->played, tb->played, RANKS);
    for (int k = 0; k < tb->size; k++)
        observe_seat(s, tb->chair[k], o);
    memset(o->hand, 0, sizeof o->hand);
    observe_hand(s, seat, o);
    events_out(o, &s->ev[seat], seq);
}

static const ja_ext_observe_update OBSERVE_UPDATE = {bombs_observe_update};

/* JA_EXT_CHANCE: every card of a hand is dealt to a seat, who sees it, so
 * nothing is unseen; reshuffle() replaces the future (the match seed, from
 * which every later deal and dealer draw comes). */
static uint32_t bombs_unseen(const void *st, uint8_t *cards, uint32_t cap)
{
    (void)st;
    (void)cards;
    (void)cap;
    return 0;
}

static void bombs_reshuffle(void *st, uint64_t seed)
{
    bombs_state *s = st;
    s->seed = ja_seed_derive(seed, JA_STREAM_CHNC, 1);
}

static uint32_t bombs_progress(const void *st, ja_outcome *so_far)
{
    const bombs_state *s = st;
    eu_outcome(so_far, true, s->n, s->score, NULL, JA_SCORE_UNIT);
    return s->hand;
}

static const ja_ext_chance CHANCE = {bombs_unseen, bombs_reshuffle, bombs_progress};

static const void *bombs_extension(const char *id)
{
    return eu_extension(id, &TEST_DEAL, &OBSERVE_UPDATE, &OBSERVE_PUBLIC, &CHANCE);
}

static int bombs_outcome(const void *st, ja_outcome *out)
{
    const bombs_state *s = st;
    return eu_outcome(out, s->over, s->n, s->score, NULL, JA_SCORE_UNIT);
}

/* ---- Hidden information -------------------------------------------------------------------------------- */

/* Whether the cards still to place can be: for every set S of seats, the
 * cards that only seats of S may take fit in their room (Hall's condition
 * for this transportation problem). rem[r]: cards of rank r left; allow[r]:
 * the seats (bit i = hid[i]) that may take rank r; room[i]: their room,
 * which in all equals the cards left, so the set of every seat needs no
 * check. */
static bool placeable(const int rem[RANKS], const uint8_t allow[RANKS], const int room[MAXC],
                      int nh)
{
    int dem[1 << MAXC] = {0};
    for (int r = 0; r < RANKS; r++)
        dem[allow[r]] += rem[r];
    for (int i = 0; i < nh; i++)
        for (int S = 0; S < (1 << nh); S++)
            if ((S >> i) & 1)
                dem[S] += dem[S ^ (1 << i)];
    for (int S = 0; S < (1 << nh) - 1; S++) {
        int c = 0;
        for (int i = 0; i < nh; i++)
            if ((S >> i) & 1)
                c += room[i];
        if (dem[S] > c)
            return false;
    }
    return true;
}

/* What redeal places: the hands hidden from the viewer (hid, nh of them;
 * club3, the index of the one known to hold the 3 of clubs, or -1), the
 * room each has left and the cards of each rank given it (alloc, its
 * known cards first), the cards of each rank still to place (need) and the
 * hands that may take them (allow, bit i for hid[i]); total, the cards the
 * hands hold less the cards unseen, which the record makes 0. */
typedef struct redeal_plan {
    int hid[MAXC], nh, club3, room[MAXC], need[RANKS], total;
    uint8_t alloc[MAXC][RANKS], allow[RANKS];
} redeal_plan;

/* The hands of table u hidden from viewer, each with its known cards (and
 * the 3 of clubs, for its known holder) in place and the room that leaves.
 * false when the record admits no deal. */
static bool plan_hands(const bombs_state *s, int u, int viewer, uint64_t own, redeal_plan *p)
{
    const bombs_table *tb = &s->t[u];
    p->nh = p->total = 0;
    p->club3 = -1;
    for (int k = 0; k < tb->size; k++)
        if (tb->chair[k] != viewer && s->count[tb->chair[k]] > 0)
            p->hid[p->nh++] = tb->chair[k];
    for (int i = 0; i < p->nh; i++) {
        p->room[i] = s->count[p->hid[i]];
        p->total += p->room[i];
        memcpy(p->alloc[i], s->known[p->hid[i]], RANKS);
        for (int q = 0; q < RANKS; q++)
            p->room[i] -= p->alloc[i][q];
        if (p->hid[i] == tb->club3) {
            p->club3 = i;
            p->room[i]--;
        }
        if (p->room[i] < 0)
            return false;
    }
    if (tb->club3 != NONE && p->club3 < 0 && tb->club3 != viewer)
        return false;
    return !(p->club3 >= 0 && ((own >> ID_3C) & 1u));
}

/* The cards of each rank still to place (those neither the viewer's, nor
 * played, nor known), and the hidden hands that may take the rank (not
 * known to lack it). false when the record admits no deal. */
static bool plan_ranks(const bombs_state *s, int u, uint64_t own, redeal_plan *p)
{
    const bombs_table *tb = &s->t[u];
    for (int q = 0; q < RANKS; q++) {
        p->need[q] = copies(q) - eu_popcount64(own & rank_bits(q)) - tb->played[q];
        p->total -= p->need[q];
        for (int i = 0; i < p->nh; i++)
            p->need[q] -= p->alloc[i][q];
        if (q == JA_BOMBS_R_3 && p->club3 >= 0)
            p->need[q]--;
        if (p->need[q] < 0)
            return false;
        p->allow[q] = 0;
        for (int i = 0; i < p->nh; i++)
            if (!((s->absent[p->hid[i]] >> q) & 1u))
                p->allow[q] |= (uint8_t)(1u << i);
    }
    return p->total == 0 && placeable(p->need, p->allow, p->room, p->nh);
}

/* The ranks of the cards to place, one entry a card, into order: first
 * those of ranks some hand may not take, then the others; returns how
 * many, with *free_from where the others begin. */
static int rank_order(const redeal_plan *p, uint8_t order[N_CARDS], int *free_from)
{
    const unsigned every = (1u << p->nh) - 1;
    int m = 0;
    for (int q = 0; q < RANKS; q++)
        if (p->allow[q] != every)
            for (int j = 0; j < p->need[q]; j++)
                order[m++] = (uint8_t)q;
    *free_from = m;
    for (int q = 0; q < RANKS; q++)
        if (p->allow[q] == every)
            for (int j = 0; j < p->need[q]; j++)
                order[m++] = (uint8_t)q;
    return m;
}

/* The n cards of order that some hand may not take, each to a hand that
 * may take it and leaves the rest placeable: the first such from a random
 * one on. false when one finds none. */
static bool place_constrained(redeal_plan *p, const uint8_t *order, int n, ja_rng *r)
{
    for (int j = 0; j < n; j++) {
        int q = order[j], start = (int)ja_rng_below(r, (uint32_t)p->nh), placed = 0;
        for (int d = 0; d < p->nh && !placed; d++) {
            int i = (start + d) % p->nh;
            if (p->room[i] == 0 || !((p->allow[q] >> i) & 1u))
                continue;
            p->room[i]--;
            p->need[q]--;
            if (placeable(p->need, p->allow, p->room, p->nh)) {
                p->alloc[i][q]++;
                placed = 1;
            } else {
                p->room[i]++;
                p->need[q]++;
            }
        }
        if (!placed)
            return false;
    }
    return true;
}

/* The hidden hands' cards from their ranks (alloc): each rank's unseen
 * copies in a random order; the 3 of clubs to its known holder. */
static void deal_identities(bombs_state *s, const redeal_plan *p, uint64_t own, ja_rng *r)
{
    for (int i = 0; i < p->nh; i++)
        s->cards[p->hid[i]] = i == p->club3 ? UINT64_C(1) << ID_3C : 0;
    for (int q = 0; q < RANKS; q++) {
        uint8_t ids[4];
        uint32_t c = 0;
        for (uint64_t b = rank_bits(q) & ~own; b; b &= b - 1) {
            unsigned id = (unsigned)__builtin_ctzll(b);
            if (!(p->club3 >= 0 && id == ID_3C))
                ids[c++] = (uint8_t)id;
        }
        ja_shuffle_u8(r, ids, c);
        uint32_t next = 0;
        for (int i = 0; i < p->nh; i++)
            for (int j = 0; j < p->alloc[i][q]; j++)
                s->cards[p->hid[i]] |= UINT64_C(1) << ids[next++];
    }
}

/* Deals the cards of table u that `viewer` cannot see (every hand of the
 * table but the viewer's; viewer = -1 for a table the viewer does not sit
 * at) again at random, consistently with the table's public record: card
 * counts, ranks played, known cards, absent ranks and the 3 of clubs.
 * Which copies of a rank were played is re-dealt too. JA_EFORMAT when the
 * record admits no deal (sample() of a bad observation). */
static int redeal(bombs_state *s, int u, int viewer, ja_rng *r)
{
    uint64_t own = viewer >= 0 ? s->cards[viewer] : 0;
    redeal_plan p;
    if (!plan_hands(s, u, viewer, own, &p) || !plan_ranks(s, u, own, &p))
        return JA_EFORMAT;
    /* First the cards of ranks some seat may not take, in a random order,
     * each to a random seat that may take it and leaves the rest placeable;
     * then the others, shuffled, into the room left (they can go anywhere,
     * so they never make the rest unplaceable). */
    uint8_t order[N_CARDS];
    int free_from, m = rank_order(&p, order, &free_from);
    ja_shuffle_u8(r, order, (uint32_t)free_from);
    ja_shuffle_u8(r, order + free_from, (uint32_t)(m - free_from));
    if (!place_constrained(&p, order, free_from, r))
        return JA_EFORMAT;
    for (int i = 0, j = free_from; i < p.nh; i++)
        for (; p.room[i] > 0; p.room[i]--)
            p.alloc[i][order[j++]]++;
    /* Then the identities: each rank's unseen copies in a random order. */
    deal_identities(s, &p, own, r);
    return JA_OK;
}

/* Re-deals everything `seat` cannot see: at its own table the other hands
 * (within the public constraints), at every other table all hands (their
 * play is hidden from it until the hand is published), a pending L1 choice
 * of another seat (the leader picks the kind again), and the future (the
 * match seed). */
static void bombs_determinize(void *st, int seat, uint64_t seed)
{
    bombs_state *s = st;
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
    for (int u = 0; u < s->n_tables; u++)
        if (s->t[u].dealer != NONE)
            redeal(s, u, s->seat_table[seat] == u ? seat : -1, &r);
    bombs_table *tb = &s->t[s->cur];
    if (!s->over && tb->stage == JA_BOMBS_STAGE_LEAD_RANK && tb->actor != seat) {
        tb->stage = JA_BOMBS_STAGE_LEAD;
        tb->lead_form = tb->lead_len = 0;
    }
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
}

/* A seat of table u (not NONE), or false. */
static bool at_table(const bombs_state *s, int seat, int u)
{
    return seat != NONE && s->seat_table[seat] == u;
}

/* The structure of table u's stage (sample() builds states from untrusted
 * observations): forms within range, and the seats each stage names where
 * the stage needs them, holding what it needs. */
static bool sane_table(const bombs_state *s, int u)
{
    const bombs_table *tb = &s->t[u];
    if (tb->top_form > JA_BOMBS_FORM_SUPER || tb->top_rank >= RANKS ||
        tb->lead_form > JA_BOMBS_FORM_SUPER || (tb->offer != NONE && tb->offer >= RANKS))
        return false;
    bool top_run = tb->top_form == JA_BOMBS_FORM_RUN || tb->top_form == JA_BOMBS_FORM_DRUN;
    bool lead_run = tb->lead_form == JA_BOMBS_FORM_RUN || tb->lead_form == JA_BOMBS_FORM_DRUN;
    if (top_run ? tb->top_len < 3 || tb->top_rank + tb->top_len - 1 > R_LAST_RUN : tb->top_len != 0)
        return false;
    if (lead_run ? tb->lead_len < 3 || tb->lead_len > JA_BOMBS_MAX_RUN : tb->lead_len != 0)
        return false;
    bool top = tb->top_form != JA_BOMBS_FORM_NONE && at_table(s, tb->top_owner, u);
    switch (tb->stage) {
    case JA_BOMBS_STAGE_IDLE: return true;
    case JA_BOMBS_STAGE_REVOLT: return tb->actor == tb->knave && at_table(s, tb->knave, u);
    case JA_BOMBS_STAGE_REQUEST:
        return tb->actor == tb->knave && at_table(s, tb->knave, u) && at_table(s, tb->master, u) &&
               tb->offer >= JA_BOMBS_R_XB && tb->offer != NONE;
    case JA_BOMBS_STAGE_ACCEPT:
        return tb->actor == tb->master && at_table(s, tb->master, u) &&
               at_table(s, tb->knave, u) && tb->offer != NONE &&
               (s->cards[tb->knave] & rank_bits(tb->offer)) != 0;
    case JA_BOMBS_STAGE_RETURN:
        return tb->actor == tb->master && at_table(s, tb->master, u) && at_table(s, tb->knave, u);
    case JA_BOMBS_STAGE_LEAD:
    case JA_BOMBS_STAGE_LEAD_RANK:
        return at_table(s, tb->actor, u) && tb->top_form == JA_BOMBS_FORM_NONE &&
               (tb->stage == JA_BOMBS_STAGE_LEAD) == (tb->lead_form == JA_BOMBS_FORM_NONE);
    case JA_BOMBS_STAGE_FOLLOW:
        return top && tb->actor == tb->turn && at_table(s, tb->turn, u) &&
               s->count[tb->turn] > 0;
    case JA_BOMBS_STAGE_WINDOW:
        return top && tb->actor == NONE && at_table(s, tb->turn, u) && s->count[tb->turn] > 0;
    default: return false;
    }
}

/* A table the observer cannot see that has finished this hand, made up:
 * a random deck, a random finishing order, the Knave left with one card. */
static void fabricate_done(bombs_state *s, int u, ja_rng *r)
{
    bombs_table *tb = &s->t[u];
    uint8_t deck[N_CARDS], order[MAXC];
    for (int i = 0; i < N_CARDS; i++)
        deck[i] = (uint8_t)i;
    ja_shuffle_u8(r, deck, N_CARDS);
    for (int k = 0; k < tb->size; k++)
        order[k] = tb->chair[k];
    ja_shuffle_u8(r, order, tb->size);
    tb->dealer = tb->knave != NONE ? tb->knave : tb->chair[0];
    for (int k = 0; k < tb->size; k++)
        s->place[order[k]] = (uint8_t)(k + 1);
    int knave = order[tb->size - 1];
    s->cards[knave] = UINT64_C(1) << deck[0];
    s->count[knave] = 1;
    for (int i = 1; i < N_CARDS; i++)
        tb->played[rank_of_id(deck[i])]++;
    tb->n_out = tb->size;
}

/* Whether obs can be sample()d for seat at all: its options, counts and
 * stage within range, the observer's table one of the hand's. */
static bool sample_fits(const ja_bombs_obs *o, int seat)
{
    const int n = o->n_seats, T = o->n_tables, u = o->table;
    return !(n < 3 || n > MAXS || seat < 0 || seat >= n || o->seat != seat || o->hands < 1 ||
             o->hands > MAX_HANDS || o->out_of_turn > 1 || o->interrupt_after_pass > 1 ||
             resolve_tables(o->tables, (uint32_t)n) != o->tables ||
             o->tiebreak_hands > MAX_TIEBREAK || T < 1 || T > MAXT ||
             o->stage > JA_BOMBS_STAGE_OVER || o->tiebreak > o->tiebreak_hands ||
             (u != NONE && (u >= T || o->seat_table[seat] != u)));
}

/* The match as obs states it: the options, the hand and the future (from
 * seed). */
static void sample_match(bombs_state *s, const ja_bombs_obs *o, uint64_t seed)
{
    s->seed = ja_seed_derive(seed, JA_STREAM_DETZ, 1);
    s->n = o->n_seats;
    s->hands = o->hands;
    s->out_of_turn = o->out_of_turn ? OOT_ON : OOT_OFF;
    s->after_pass = o->interrupt_after_pass ? AFTER_ON : AFTER_OFF;
    s->tables = o->tables;
    s->tiebreak_cap = o->tiebreak_hands;
    s->tiebreak = o->tiebreak;
    s->hand = o->hand_no;
    s->n_tables = o->n_tables;
}

/* The layout (each seat's table and chair, one seat a chair) and the
 * published results. JA_EFORMAT for a layout that cannot be. */
static int sample_layout(bombs_state *s, const ja_bombs_obs *o)
{
    const int n = s->n;
    for (int v = 0; v < MAXT; v++)
        memset(s->t[v].chair, NONE, MAXC);
    memset(s->seat_table, NONE, sizeof s->seat_table);
    memset(s->seat_chair, NONE, sizeof s->seat_chair);
    for (int i = 0; i < n; i++) {
        int v = o->seat_table[i], c = o->seat_chair[i];
        if (v == NONE)
            continue;
        if (v >= s->n_tables || c >= MAXC || s->t[v].chair[c] != NONE)
            return JA_EFORMAT;
        s->t[v].chair[c] = (uint8_t)i;
        s->t[v].size++;
        s->seat_table[i] = (uint8_t)v;
        s->seat_chair[i] = (uint8_t)c;
    }
    for (int i = 0; i < n; i++) {
        s->score[i] = o->score[i];
        s->last_place[i] = o->last_place[i];
    }
    return JA_OK;
}

/* Every table of the hand: its chairs filled from the first, its exchange
 * pair (seated there, both or neither, in exactly the hands that have an
 * exchange), nothing dealt yet. JA_EFORMAT otherwise. */
static int sample_tables(bombs_state *s, const ja_bombs_obs *o)
{
    for (int v = 0; v < s->n_tables; v++) {
        bombs_table *tb = &s->t[v];
        if (tb->size < 3 || tb->chair[tb->size - 1] == NONE)
            return JA_EFORMAT;
        tb->master = o->table_master[v];
        tb->knave = o->table_knave[v];
        if ((tb->master != NONE && s->seat_table[tb->master] != v) ||
            (tb->knave != NONE && s->seat_table[tb->knave] != v) ||
            ((tb->master == NONE) != (tb->knave == NONE)) ||
            ((tb->knave != NONE) != (o->tiebreak == 0 && o->hand_no > 0)))
            return JA_EFORMAT;
        tb->dealer = tb->actor = tb->top_owner = tb->turn = tb->offer = tb->club3 = NONE;
    }
    return JA_OK;
}

/* The observer's table u from the public record: its stage and play, and
 * each seat's count, place, absent ranks and known cards; every seat the
 * record names must sit there. JA_EFORMAT otherwise. */
static int sample_record(bombs_state *s, const ja_bombs_obs *o, int seat, int u)
{
    bombs_table *tb = &s->t[u];
    if (o->stage == JA_BOMBS_STAGE_LEAD_RANK ? o->actor != seat : o->lead_form || o->lead_len)
        return JA_EFORMAT;
    if (o->dealer != NONE && s->seat_table[o->dealer] != u)
        return JA_EFORMAT;
    tb->dealer = o->dealer;
    tb->stage = o->stage == JA_BOMBS_STAGE_OVER ? JA_BOMBS_STAGE_IDLE : o->stage;
    tb->actor = o->actor;
    tb->lead_form = o->lead_form;
    tb->lead_len = o->lead_len;
    tb->top_form = o->top_form;
    tb->top_rank = o->top_rank;
    tb->top_len = o->top_len;
    tb->top_owner = o->top_owner;
    tb->turn = o->turn_seat;
    tb->passes = o->passes;
    tb->offer = o->offer;
    tb->requested = o->requested;
    tb->club3 = o->club3;
    memcpy(tb->played, o->played, RANKS);
    for (int k = 0; k < tb->size; k++) {
        int p = tb->chair[k];
        s->count[p] = o->count[p];
        s->place[p] = o->place[p];
        s->absent[p] = o->absent[p];
        memcpy(s->known[p], o->known + RANKS * p, RANKS);
        tb->n_out += o->place[p] != 0;
    }
    if ((tb->top_owner != NONE && s->seat_table[tb->top_owner] != u) ||
        (tb->turn != NONE && s->seat_table[tb->turn] != u) ||
        (tb->actor != NONE && s->seat_table[tb->actor] != u) ||
        (tb->club3 != NONE && s->seat_table[tb->club3] != u))
        return JA_EFORMAT;
    return JA_OK;
}

/* The observer's table: its record, the observer's own hand, and, once
 * dealt, the other hands dealt at random within the record (redeal, on
 * seed's stream 0). *dealt and *done: whether the table's hand was dealt,
 * and finished. JA_EFORMAT when obs admits no such table. */
static int sample_own_table(bombs_state *s, const ja_bombs_obs *o, int seat, uint64_t seed,
                            bool *dealt, bool *done)
{
    const int u = o->table;
    if (sample_record(s, o, seat, u) != JA_OK)
        return JA_EFORMAT;
    for (int c = 0; c < N_CARDS; c++) {
        if (o->hand[c] > 1)
            return JA_EFORMAT;
        if (o->hand[c])
            s->cards[seat] |= UINT64_C(1) << c;
    }
    const bombs_table *tb = &s->t[u];
    *dealt = tb->dealer != NONE;
    *done = *dealt && tb->n_out == tb->size;
    if (*dealt) {
        ja_rng r;
        ja_rng_stream(&r, seed, JA_STREAM_DETZ, 0);
        if (redeal(s, u, seat, &r) != JA_OK)
            return JA_EFORMAT;
    }
    return JA_OK;
}

/* The table playing (cur), from the observer's stage and table: tables
 * play in order, so an idle observer's table is the next to play (not
 * dealt yet, the one before it playing) or has played (finished, the one
 * after it playing). JA_EFORMAT when none fits. */
static int sample_cur(bombs_state *s, const ja_bombs_obs *o, bool dealt, bool done)
{
    const int u = o->table;
    if (o->stage == JA_BOMBS_STAGE_OVER) {
        s->over = 1;
        s->cur = (uint8_t)(s->n_tables - 1);
    } else if (o->stage != JA_BOMBS_STAGE_IDLE) {
        s->cur = (uint8_t)u;
    } else if (u == NONE) {
        s->cur = 0;
    } else if (done) {
        s->cur = (uint8_t)(u + 1);
    } else if (u > 0 && !dealt) {
        s->cur = (uint8_t)(u - 1);
    } else {
        return JA_EFORMAT;
    }
    return s->cur < s->n_tables ? JA_OK : JA_EFORMAT;
}

/* The tables the observer does not see, made up on seed's stream 2: those
 * before the playing one finished (fabricate_done), the playing one
 * freshly dealt, later ones not dealt yet. */
static void sample_unseen_tables(bombs_state *s, int u, uint64_t seed)
{
    ja_rng r;
    ja_rng_stream(&r, seed, JA_STREAM_DETZ, 2);
    for (int v = 0; v < s->n_tables; v++) {
        if (v == u)
            continue;
        if (s->over || v < s->cur)
            fabricate_done(s, v, &r);
        else if (v == s->cur)
            begin_table(s, v);
    }
}

/* Whatever the checks of sample() missed: the state must observe back to
 * exactly obs, its observer's table be sane, and the state be at a decision
 * (with a legal action for every seat to act) unless the match is over. */
static bool sample_consistent(const bombs_state *s, const ja_bombs_obs *o, int seat)
{
    ja_bombs_obs back;
    bombs_observe(s, seat, &back);
    if (memcmp(&back, o, sizeof back) != 0)
        return false;
    if (o->table != NONE && !sane_table(s, o->table))
        return false;
    if (!s->over) {
        uint32_t l[MAX_LEGAL], mask = bombs_to_act(s);
        if (s->t[s->cur].stage == JA_BOMBS_STAGE_IDLE || mask == 0 || (mask >> s->n) != 0)
            return false;
        for (uint32_t m = mask; m; m &= m - 1)
            if (gen_legal(s, __builtin_ctz(m), l) == 0)
                return false;
    }
    return true;
}

/* Builds a full state from what seat knows (obs): the options, layout and
 * published results; its table from the public record, its own hand, the
 * other hands dealt at random within the public constraints (redeal); the
 * tables it cannot see made up consistently with the order tables play in
 * (finished ones by fabricate_done, the current one freshly dealt, later
 * ones not dealt yet); its own event ring; the future from seed. Other
 * seats' event rings stay empty. JA_EFORMAT unless the result observes back
 * to exactly obs. */
static int bombs_sample(const void *obs, int seat, uint64_t seed, void *st_out)
{
    const ja_bombs_obs *o = obs;
    bombs_state *s = st_out;
    memset(s, 0, sizeof *s);
    if (!sample_fits(o, seat))
        return JA_EFORMAT;
    sample_match(s, o, seed);
    if (sample_layout(s, o) != JA_OK || sample_tables(s, o) != JA_OK)
        return JA_EFORMAT;
    bool dealt = false, done = false;
    if (o->table != NONE && sample_own_table(s, o, seat, seed, &dealt, &done) != JA_OK)
        return JA_EFORMAT;
    if (sample_cur(s, o, dealt, done) != JA_OK)
        return JA_EFORMAT;
    sample_unseen_tables(s, o->table, seed);
    /* The observer's events. */
    s->ev_count[seat] = s->ev_mark[seat] = o->event_seq;
    EU_EVENTS_IN(&s->ev[seat], o, N_EVENTS, ev_kind, ev_seat, ev_arg);
    return sample_consistent(s, o, seat) ? JA_OK : JA_EFORMAT;
}

/* ---- Text --------------------------------------------------------------------------------------------- */

/* "single 7", "run 3-7", "double run 9-J", "complete 7", "super bomb". */
static int play_label(const ja_bombs_play *p, char *buf, size_t cap)
{
    const char *r = RANK_NAMES[p->rank];
    switch (p->form) {
    case JA_BOMBS_FORM_SINGLE: return snprintf(buf, cap, "single %s", r);
    case JA_BOMBS_FORM_PAIR: return snprintf(buf, cap, "pair %s", r);
    case JA_BOMBS_FORM_RUN:
        return snprintf(buf, cap, "run %s-%s", r, RANK_NAMES[p->rank + p->len - 1]);
    case JA_BOMBS_FORM_DRUN:
        return snprintf(buf, cap, "double run %s-%s", r, RANK_NAMES[p->rank + p->len - 1]);
    case JA_BOMBS_FORM_BOMB: return snprintf(buf, cap, "%s %s", p->complete ? "complete" : "bomb", r);
    case JA_BOMBS_FORM_BIG: return snprintf(buf, cap, "big bomb %s", r);
    default: return snprintf(buf, cap, "super bomb");
    }
}

static int bombs_label(ja_action a, char *buf, size_t cap)
{
    uint32_t c = a.code;
    ja_bombs_play p;
    if (ja_bombs_play_decode(c, &p))
        return play_label(&p, buf, cap);
    switch (c) {
    case JA_BOMBS_PASS: return snprintf(buf, cap, "pass");
    case JA_BOMBS_DECLINE: return snprintf(buf, cap, "decline");
    case JA_BOMBS_LEAD_SINGLE: return snprintf(buf, cap, "lead single");
    case JA_BOMBS_LEAD_PAIR: return snprintf(buf, cap, "lead pair");
    case JA_BOMBS_LEAD_BOMB: return snprintf(buf, cap, "lead bomb");
    case JA_BOMBS_LEAD_BIG: return snprintf(buf, cap, "lead big bomb");
    case JA_BOMBS_LEAD_SUPER: return snprintf(buf, cap, "lead super bomb");
    case JA_BOMBS_REVOLT: return snprintf(buf, cap, "revolt");
    case JA_BOMBS_NO_REVOLT: return snprintf(buf, cap, "no revolt");
    case JA_BOMBS_ACCEPT: return snprintf(buf, cap, "accept");
    case JA_BOMBS_REFUSE: return snprintf(buf, cap, "refuse");
    case JA_BOMBS_NO_REQUEST: return snprintf(buf, cap, "no request");
    default: break;
    }
    if (c >= JA_BOMBS_LEAD_RUN(3) && c <= JA_BOMBS_LEAD_RUN(JA_BOMBS_MAX_RUN))
        return snprintf(buf, cap, "lead run of %u", (unsigned)(c - JA_BOMBS_LEAD_RUN(0)));
    if (c >= JA_BOMBS_LEAD_DRUN(3) && c <= JA_BOMBS_LEAD_DRUN(JA_BOMBS_MAX_RUN))
        return snprintf(buf, cap, "lead double run of %u", (unsigned)(c - JA_BOMBS_LEAD_DRUN(0)));
    if (c >= JA_BOMBS_REQUEST(0) && c <= JA_BOMBS_REQUEST(R_LAST_REQUEST))
        return snprintf(buf, cap, "request %s", RANK_NAMES[c - JA_BOMBS_REQUEST(0)]);
    if (c >= JA_BOMBS_RETURN(0) && c < JA_BOMBS_RETURN(RANKS))
        return snprintf(buf, cap, "return %s", RANK_NAMES[c - JA_BOMBS_RETURN(0)]);
    return JA_EINVAL;
}

/* "hand 2/12 table 1/2: seat 4 to follow bomb 7 of seat 2 (1 pass); cards
 * 4:13 5:9 6:0 7:11; points 7 4 ...". Public facts only. */
static int bombs_describe(const void *st, char *buf, size_t cap)
{
    const bombs_state *s = st;
    char tmp[1024], l[64];
    eu_text t = EU_TEXT(tmp);
#define ADD(...) eu_add(&t, __VA_ARGS__)
    if (s->over) {
        ADD("match over after %u hand%s", s->hand + 1u, s->hand ? "s" : "");
        if (s->tiebreak)
            ADD(" (%u tiebreak)", (unsigned)s->tiebreak);
    } else {
        const bombs_table *tb = &s->t[s->cur];
        if (s->tiebreak)
            ADD("tiebreak hand %u", (unsigned)s->tiebreak);
        else
            ADD("hand %u/%u", s->hand + 1u, (unsigned)s->hands);
        ADD(" table %u/%u: ", s->cur + 1u, (unsigned)s->n_tables);
        l[0] = '\0';
        if (tb->top_form != JA_BOMBS_FORM_NONE) {
            ja_bombs_play p = {tb->top_form, tb->top_rank, tb->top_len, false};
            play_label(&p, l, sizeof l);
        }
        switch (tb->stage) {
        case JA_BOMBS_STAGE_REVOLT: ADD("seat %u (Knave) may revolt", tb->actor); break;
        case JA_BOMBS_STAGE_ACCEPT:
            ADD("seat %u (Master) to accept or refuse a %s", tb->actor, RANK_NAMES[tb->offer]);
            break;
        case JA_BOMBS_STAGE_REQUEST: ADD("seat %u (Knave) may request", tb->actor); break;
        case JA_BOMBS_STAGE_RETURN: ADD("seat %u (Master) to return a card", tb->actor); break;
        case JA_BOMBS_STAGE_LEAD:
        case JA_BOMBS_STAGE_LEAD_RANK: ADD("seat %u to lead", tb->actor); break;
        case JA_BOMBS_STAGE_FOLLOW:
            ADD("seat %u to follow %s of seat %u (%u pass%s)", tb->actor, l, tb->top_owner,
                tb->passes, tb->passes == 1 ? "" : "es");
            break;
        default: {
            ADD("window after %s of seat %u: seats", l, tb->top_owner);
            uint32_t m = window_seats(s, tb);
            for (int i = 0; i < s->n; i++)
                if ((m >> i) & 1u)
                    ADD(" %d", i);
            ADD(", then seat %u", tb->turn);
            break;
        }
        }
        ADD("; cards");
        for (int k = 0; k < tb->size; k++)
            ADD(" %u:%u", tb->chair[k], s->count[tb->chair[k]]);
    }
    ADD("; points");
    for (int i = 0; i < s->n; i++)
        ADD(" %d", (int)s->score[i]);
#undef ADD
    return snprintf(buf, cap, "%s", tmp);
}

/* ---- The table ------------------------------------------------------------------------------------------ */

const ja_game_rules ja_bombs_rules = {
    EU_RULES_TYPES(bombs_state, ja_bombs_obs, JA_BOMBS_OBS_VERSION),
    .rules_version = 2, .name = "bombs", .title = "Bombs",
    .min_seats = 3, .max_seats = MAXS,
    .max_actions = MAX_LEGAL,
    EU_RULES_FUNCS(bombs),
};
