/* Byte tables of JSON strings (the walk, csrc/nuif_walk.h, and its error reporter, nuif_fault.h,
 * read the hex digits and the escapes): filled once by nuif_tables_init() when the module is
 * imported. */
#ifndef NUIF_TABLES_H
#define NUIF_TABLES_H

#include <stdint.h>

static uint8_t nuif_hexval[256]; /* 0..15 for a hex digit, else 255 */
/* the byte a two-character escape \X stands for, by X ('"', '\\', '/', b, f, n, r, t), else 0 */
static uint8_t nuif_unescape[256];

static void nuif_tables_init(void) {
    int c;
    for (c = 0; c < 256; c++) {
        nuif_hexval[c] = 255;
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
