/* Dispatch of the seat interface to each kind's ops (seat.h). */
#include "seat.h"

#include "jackarena/ja_vec_env.h"

#include <string.h>
#include <time.h>

uint64_t ref_bot_seed(uint64_t match_seed, int32_t seat)
{
    return ja_vec_bot_seed(match_seed, seat); /* one function for both (ja_vec_env.h) */
}

int64_t ref_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool ref_cpu_within(uint64_t wall_us, uint64_t free_us)
{
    return wall_us + wall_us / 1000 + 2 <= free_us;
}

int ref_bot_supports(ref_bot *b, const ja_game_rules *g)
{
    return b->ops->supports(b, g);
}

const ref_bot_info *ref_bot_get_info(const ref_bot *b)
{
    return &b->info;
}

uint32_t ref_bot_capacity(ref_bot *b)
{
    return b->ops->capacity ? b->ops->capacity(b) : 0;
}

uint32_t ref_bot_default_move_ms(const ref_bot *b)
{
    return b->ops->default_move_ms;
}

void ref_bot_destroy(ref_bot **b)
{
    if (!b || !*b)
        return;
    (*b)->ops->destroy(*b);
    *b = NULL;
}

int ref_seat_open(ref_bot *b, const ref_seat_ctx *ctx, ref_seat **out, char *err, size_t cap)
{
    return b->ops->seat_open(b, ctx, out, err, cap);
}

void ref_seat_end(ref_seat *s, const ja_outcome *o)
{
    s->bot->ops->end(s, o);
}

void ref_seat_close(ref_seat **s)
{
    if (!s || !*s)
        return;
    (*s)->bot->ops->seat_close(*s);
    *s = NULL;
}

size_t ref_seat_stderr_tail(ref_seat *s, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!s || !cap || !s->bot->ops->stderr_tail)
        return 0;
    return s->bot->ops->stderr_tail(s, buf, cap);
}

void ref_seat_take_log(ref_seat *s, ja_declog *out)
{
    ja_declog_clear(out);
    if (s->bot->ops->take_log)
        s->bot->ops->take_log(s, out);
}
