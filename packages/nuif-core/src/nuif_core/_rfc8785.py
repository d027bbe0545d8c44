"""RFC 8785 spelling: how JSON strings, numbers and member order are written.

This is not a public API.  It is the lowest layer that knows JSON text: the pure-Python codec
(``_codec_py``) writes with it, and the messages (``_messages``) quote names and numbers with
it, so that a message spells a value exactly as the canonical text would.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_SAFE_INTEGER",
    "NONCHARACTER",
    "dumps_str",
    "format_number",
    "number_text",
    "utf16_key",
]

#: the largest integer every double holds exactly; I-JSON integers stay within ±this
MAX_SAFE_INTEGER = 2**53 - 1

#: the Unicode noncharacters, which I-JSON forbids in strings (one of them, as a regex)
NONCHARACTER = re.compile(
    "[\ufdd0-\ufdef\ufffe\uffff"
    + "".join(chr(p << 16 | 0xFFFE) + chr(p << 16 | 0xFFFF) for p in range(1, 17))
    + "]"
)

_STR_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_STR_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"})
_STR_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\"})
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def dumps_str(s: str) -> str:
    """A JSON string literal as ECMAScript ``JSON.stringify`` writes it (no checks)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    return '"' + s.translate(_STR_ESCAPES) + '"'


def format_number(x: float) -> str:
    """ECMAScript ``Number.prototype.toString`` of a finite double (RFC 8785 §3.2.2.3)."""
    if x == 0:
        return "0"
    r = repr(float(x))  # shortest round-trip digits (David Gay), correctly rounded
    sign = ""
    if r[0] == "-":
        sign, r = "-", r[1:]
    mantissa, _, exp_text = r.partition("e")
    exp = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = (int_part + frac_part).lstrip("0")
    digits = all_digits.rstrip("0")
    # value = int(digits) * 10 ** (exp - len(frac_part) + trailing zeros stripped)
    e10 = exp - len(frac_part) + (len(all_digits) - len(digits))
    k = len(digits)
    n = e10 + k
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        esign = "+" if e >= 0 else "-"
        head = digits[0] if k == 1 else digits[0] + "." + digits[1:]
        out = f"{head}e{esign}{abs(e)}"
    return sign + out


def number_text(value: int | float) -> str:
    """The RFC 8785 text of a number read from strict I-JSON (an int within ±(2^53 − 1), or a
    finite float), as ``dumps`` writes it."""
    if type(value) is int:
        return str(value)
    return format_number(value)


def utf16_key(s: str) -> bytes:
    """The sort key of a member name: RFC 8785 orders names by their UTF-16 code units."""
    return s.encode("utf-16-be", "surrogatepass")
