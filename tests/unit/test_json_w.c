/* The JSON writer (arena/core/json_w.h): document order, nesting, numbers,
 * strings that need escaping or are not UTF-8, and that every output
 * parses back (jansson) to what was written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/json_w.h"
#include "jackarena/ja_common.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs body over a memory stream; returns the text (caller frees). */
static char *capture(void (*body)(json_w *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    json_w w;
    jw_init(&w, f);
    body(&w);
    fclose(f);
    return buf;
}

static void nested(json_w *w)
{
    jw_obj(w, NULL);
    jw_str(w, "game", "bombs");
    jw_int(w, "seats", 20);
    jw_arr(w, "places");
    jw_int(w, NULL, 1);
    jw_int(w, NULL, -2);
    jw_obj(w, NULL);
    jw_bool(w, "forfeit", true);
    jw_null(w, "why");
    jw_obj_end(w);
    jw_arr_end(w);
    jw_num(w, "elo", 1512.25);
    jw_bool(w, "last", false);
    jw_obj_end(w);
    jw_end(w);
}

static void test_order_and_nesting(void **state)
{
    (void)state;
    char *s = capture(nested);
    assert_string_equal(s, "{\"game\":\"bombs\",\"seats\":20,\"places\":[1,-2,{\"forfeit\":true,\"why\":null}],"
                           "\"elo\":1512.25,\"last\":false}\n");
    free(s);
}

static void numbers(json_w *w)
{
    jw_arr(w, NULL);
    jw_num(w, NULL, NAN);
    jw_num(w, NULL, INFINITY);
    jw_num(w, NULL, 1.0 / 3.0);
    jw_num(w, NULL, 1500.0);
    jw_num(w, NULL, -0.5);
    jw_int(w, NULL, -9223372036854775807LL - 1);
    jw_score(w, NULL, 3 * JA_SCORE_UNIT);
    jw_score(w, NULL, JA_SCORE_UNIT / 2);
    jw_arr_end(w);
    jw_end(w);
}

static void test_numbers(void **state)
{
    (void)state;
    char *s = capture(numbers);
    /* non-finite reals are null; 10 significant digits; a whole real is an
     * integer; integers exact; a
     * whole score is an integer, half a point a real */
    assert_string_equal(s, "[null,null,0.3333333333,1500,-0.5,-9223372036854775808,3,0.5]\n");
    free(s);
}

static void strings(json_w *w)
{
    jw_obj(w, NULL);
    jw_str(w, "esc", "a\"b\\c\nd\te\x01</script>");
    jw_str(w, "utf8", "caf\xc3\xa9");
    jw_str(w, "bad", "x\xff\xfey");
    jw_str(w, "none", NULL);
    jw_obj_end(w);
    jw_end(w);
}

static void test_strings(void **state)
{
    (void)state;
    char *s = capture(strings);
    json_error_t e;
    json_t *v = json_loads(s, 0, &e);
    assert_non_null(v); /* valid JSON even with invalid UTF-8 given */
    assert_string_equal(json_string_value(json_object_get(v, "esc")), "a\"b\\c\nd\te\x01</script>");
    assert_string_equal(json_string_value(json_object_get(v, "utf8")), "caf\xc3\xa9");
    assert_string_equal(json_string_value(json_object_get(v, "bad")), "x??y");
    assert_string_equal(json_string_value(json_object_get(v, "none")), "");
    json_decref(v);
    free(s);
}

/* Two top values on one stream, without jw_end between them (the viewer
 * writes one object into a memory stream and closes it). */
static void two_tops(json_w *w)
{
    jw_obj(w, NULL);
    jw_int(w, "a", 1);
    jw_obj_end(w);
    jw_str(w, NULL, "top");
}

static void test_top_written_when_complete(void **state)
{
    (void)state;
    char *s = capture(two_tops);
    assert_string_equal(s, "{\"a\":1}\"top\"");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_nesting),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_top_written_when_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
