/* Byte classes of the parser's string scanner (src/nuif_core/_speedups_strings.pxi): filled once
 * by nuif_tables_init() when the module is imported. */
#ifndef NUIF_TABLES_H
#define NUIF_TABLES_H

#include <stdint.h>

/* nuif_str_cls: what a byte means inside a JSON string */
enum {
    NUIF_C_PLAIN = 0,
    NUIF_C_QUOTE = 1,  /* '"' */
    NUIF_C_BSLASH = 2, /* '\\' */
    NUIF_C_CTRL = 3,   /* 00..1F */
    NUIF_C_EF = 4,     /* EF: the lead byte of U+FDD0..U+FDEF and U+FFFE/U+FFFF */
    NUIF_C_F0 = 5      /* F0..F4: the lead bytes of the other noncharacters */
};

static uint8_t nuif_str_cls[256];
static uint8_t nuif_hexval[256]; /* 0..15 for a hex digit, else 255 */
/* the byte a two-character escape \X stands for, by X ('"', '\\', '/', b, f, n, r, t), else 0 */
static uint8_t nuif_unescape[256];

static void nuif_tables_init(void) {
    int c;
    for (c = 0; c < 256; c++) {
        nuif_str_cls[c] = NUIF_C_PLAIN;
        nuif_hexval[c] = 255;
    }
    for (c = 0; c < 0x20; c++) {
        nuif_str_cls[c] = NUIF_C_CTRL;
    }
    nuif_str_cls[0x22] = NUIF_C_QUOTE;
    nuif_str_cls[0x5C] = NUIF_C_BSLASH;
    nuif_str_cls[0xEF] = NUIF_C_EF;
    for (c = 0xF0; c < 0xF5; c++) {
        nuif_str_cls[c] = NUIF_C_F0;
    }
    for (c = 0; c < 10; c++) {
        nuif_hexval[0x30 + c] = (uint8_t)c;
    }
    for (c = 0; c < 6; c++) {
        nuif_hexval[0x41 + c] = (uint8_t)(10 + c);
        nuif_hexval[0x61 + c] = (uint8_t)(10 + c);
    }
    for (c = 0; c < 256; c++) {
        nuif_unescape[c] = 0;
    }
    nuif_unescape['"'] = '"';
    nuif_unescape['\\'] = '\\';
    nuif_unescape['/'] = '/';
    nuif_unescape['b'] = 0x08;
    nuif_unescape['f'] = 0x0C;
    nuif_unescape['n'] = 0x0A;
    nuif_unescape['r'] = 0x0D;
    nuif_unescape['t'] = 0x09;
}

#endif
