/* Bots that misuse the hosted channel (tests/sandbox/): the bot is the
 * hosted child's process, so it can write packets of its own on fd 3, the
 * channel to the referee, or close it. One source, built once per kind with
 * -DCHANNEL=<n> (CMakeLists.txt):
 *
 *   FORGE: answers index (7 turn + 3) mod n (a choice that tells its turn),
 *     and at turn 2 first writes an `action` for turn 1 (past), at turn 4
 *     one for turn 9 (future), at turn 6 bytes that are no message, and at
 *     turn 8 an `action` for turn 8 itself with another index. Its match is
 *     "play" (`arena play`'s match id).
 *   CLOSE: plays index 0, and at turn 2 closes fd 3 and returns an answer
 *     that can no longer be sent; the process lives on.
 *
 * Hosted only: in-process these would write on the arena's descriptor 3. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { FORGE, CLOSE };
enum { CHAN_FD = 3 };

static uint32_t pick(uint32_t turn, uint32_t n) { return (7 * turn + 3) % n; }

/* msgpack of {"type": "action", "match": "play", "turn": turn, "index": index}
 * (turn and index below 2^16). */
static void forge_action(uint32_t turn, uint32_t index)
{
    unsigned char b[64];
    size_t n = 0;
    static const unsigned char head[] = {0x84, 0xa4, 't', 'y', 'p', 'e', 0xa6, 'a', 'c', 't',
                                         'i', 'o', 'n', 0xa5, 'm', 'a', 't', 'c', 'h', 0xa4,
                                         'p', 'l', 'a', 'y', 0xa4, 't', 'u', 'r', 'n'};
    memcpy(b, head, sizeof head);
    n = sizeof head;
    b[n++] = 0xcd;
    b[n++] = (unsigned char)(turn >> 8);
    b[n++] = (unsigned char)turn;
    static const unsigned char key[] = {0xa5, 'i', 'n', 'd', 'e', 'x'};
    memcpy(b + n, key, sizeof key);
    n += sizeof key;
    b[n++] = 0xcd;
    b[n++] = (unsigned char)(index >> 8);
    b[n++] = (unsigned char)index;
    (void)send(CHAN_FD, b, n, MSG_NOSIGNAL);
}

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    (void)h, (void)hctx, (void)game, (void)seat, (void)n;
    *out = calloc(1, 1);
    return *out ? JA_OK : JA_ENOMEM;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    (void)bot;
    *index = 0;
    if (CHANNEL == CLOSE) {
        if (d->turn == 2)
            close(CHAN_FD);
        return JA_OK;
    }
    *index = pick(d->turn, d->n_legal);
    if (d->turn == 2)
        forge_action(1, 0);
    else if (d->turn == 4)
        forge_action(9, 0);
    else if (d->turn == 6)
        (void)send(CHAN_FD, "\xc1\xc1 not msgpack", 14, MSG_NOSIGNAL);
    else if (d->turn == 8)
        forge_action(8, (*index + 1) % d->n_legal);
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

#define STR2(x) #x
#define STR(x) STR2(x)
static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "channel" STR(CHANNEL), .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
