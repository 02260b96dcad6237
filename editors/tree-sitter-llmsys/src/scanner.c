// External scanner for tree-sitter-llmsys: the units of quantities.
//
// grammar/LLMSys.g4 reads a unit with semantic predicates that a context-free
// grammar cannot state:
//   primary : NUMBER ({onSameLine()}? unit)?
//           | NUMWORD ({glued2()}? SLASH unitAtom)* ;
//   unit    : unitAtom ({glued2()}? SLASH unitAtom)* ;
//   unitAtom: (IDENT | PERCENT) ({glued2()}? CARET NUMBER)? ;
// This scanner reads a whole unit as one token:
//   UNIT         after a NUMBER: the unit starts on the same line (spaces,
//                tabs and block comments without a line break may come
//                between) and its first atom is not a keyword;
//   UNIT_SUFFIX  after a NUMWORD: glued "/atom" parts only ("5GB/s").
// Keywords are tokens of their own in LLMSys.g4, never IDENT, so an atom that
// is a keyword ends the unit ("1 .. 8 step 2", "x == 2 and y").

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum TokenType { UNIT, UNIT_SUFFIX, IDENTIFIER };

static const char *const KEYWORDS[] = {
    "import", "extends", "over",  "expect", "in",   "where",
    "minimize", "maximize", "pareto", "keep", "step", "true",
    "false", "and", "or", "not",
};

void *tree_sitter_llmsys_external_scanner_create(void) { return NULL; }
void tree_sitter_llmsys_external_scanner_destroy(void *payload) { (void)payload; }
unsigned tree_sitter_llmsys_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}
void tree_sitter_llmsys_external_scanner_deserialize(void *payload, const char *buffer,
                                                     unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

static bool is_ident_start(int32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == 0xB5;
}
static bool is_ident_char(int32_t c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_digit(int32_t c) { return c >= '0' && c <= '9'; }

static void advance(TSLexer *lexer) { lexer->advance(lexer, false); }

static bool is_keyword(const char *word) {
  for (size_t i = 0; i < sizeof(KEYWORDS) / sizeof(KEYWORDS[0]); ++i)
    if (strcmp(word, KEYWORDS[i]) == 0) return true;
  return false;
}

// The NUMBER glued after '^': DIGITS ('.' DIGITS)? EXPONENT? | '.' DIGITS
// EXPONENT?. Marks the token's end after it and returns true when it is a
// NUMBER token in LLMSys.g4's lexer (digits glued to letters make a NUMWORD
// there, which ends the unit before the '^'; so does any other character).
static bool scan_exponent_number(TSLexer *lexer) {
  bool leading_digits = false;
  if (is_digit(lexer->lookahead)) {
    leading_digits = true;
    while (is_digit(lexer->lookahead)) advance(lexer);
    if (lexer->lookahead != '.' && lexer->lookahead != 'e' && lexer->lookahead != 'E') {
      if (is_ident_start(lexer->lookahead)) return false;  // NUMWORD
      lexer->mark_end(lexer);
      return true;
    }
    if (lexer->lookahead == '.') {
      lexer->mark_end(lexer);  // "2." not followed by digits: NUMBER "2"
      advance(lexer);
      if (!is_digit(lexer->lookahead)) return true;
    }
  } else if (lexer->lookahead == '.') {
    advance(lexer);
    if (!is_digit(lexer->lookahead)) return false;
  } else {
    return false;
  }
  while (is_digit(lexer->lookahead)) advance(lexer);
  // ".5" is a NUMBER whatever follows; "2.5" only if no letter follows.
  if (!leading_digits) lexer->mark_end(lexer);
  if (lexer->lookahead == 'e' || lexer->lookahead == 'E') {
    advance(lexer);
    if (lexer->lookahead == '+' || lexer->lookahead == '-') {
      advance(lexer);
      if (!is_digit(lexer->lookahead)) return !leading_digits;
    } else if (!is_digit(lexer->lookahead)) {
      return !leading_digits;  // "2.5e" is a NUMWORD
    }
    while (is_digit(lexer->lookahead)) advance(lexer);
  }
  if (leading_digits && is_ident_start(lexer->lookahead)) return false;  // NUMWORD
  lexer->mark_end(lexer);
  return true;
}

// Reads an identifier and marks the token's end after it; false for a
// keyword (a token of its own in LLMSys.g4, never an IDENT).
static bool scan_identifier(TSLexer *lexer) {
  if (!is_ident_start(lexer->lookahead)) return false;
  char word[16];
  size_t length = 0;
  while (is_ident_char(lexer->lookahead)) {
    if (length < sizeof(word) - 1) word[length] = (char)lexer->lookahead;
    ++length;
    advance(lexer);
  }
  if (length < sizeof(word)) {
    word[length] = '\0';
    if (is_keyword(word)) return false;
  }
  lexer->mark_end(lexer);
  return true;
}

// unitAtom : (IDENT | PERCENT) (CARET NUMBER)? , all glued. On success the
// token's end is marked after the atom. A keyword is not an atom.
static bool scan_atom(TSLexer *lexer) {
  if (lexer->lookahead == '%') {
    advance(lexer);
  } else if (!scan_identifier(lexer)) {
    return false;
  }
  lexer->mark_end(lexer);
  if (lexer->lookahead == '^') {
    advance(lexer);
    scan_exponent_number(lexer);  // marks the end only when it is a NUMBER
  }
  return true;
}

// ({glued2()}? SLASH unitAtom)* ; returns whether at least one part was read.
static bool scan_glued_parts(TSLexer *lexer) {
  bool any = false;
  while (lexer->lookahead == '/') {
    advance(lexer);
    if (!scan_atom(lexer)) break;
    any = true;
  }
  return any;
}

// After a plain word that could be a unit ("2 x"), whether what follows
// makes the word the start of the next member instead: "=" (not "=="), "."
// (not ".."), or "extends". ANTLR's adaptive prediction takes the unit only
// where the rest of the file still parses, and a unit is never followed by
// these ("seq_len = 8192  mapping = m" is two members there).
static bool starts_member(TSLexer *lexer) {
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\n') {
      advance(lexer);
    } else if (c == '/') {
      advance(lexer);
      if (lexer->lookahead == '/') {
        while (lexer->lookahead != 0 && lexer->lookahead != '\n') advance(lexer);
      } else if (lexer->lookahead == '*') {
        advance(lexer);
        for (;;) {
          if (lexer->lookahead == 0) return false;
          int32_t prev = lexer->lookahead;
          advance(lexer);
          if (prev == '*' && lexer->lookahead == '/') {
            advance(lexer);
            break;
          }
        }
      } else {
        return false;
      }
    } else {
      break;
    }
  }
  if (lexer->lookahead == '=') {
    advance(lexer);
    return lexer->lookahead != '=';
  }
  if (lexer->lookahead == '.') {
    advance(lexer);
    return lexer->lookahead != '.';
  }
  if (lexer->lookahead != 'e') return false;
  const char *rest = "extends";
  for (const char *p = rest; *p; ++p) {
    if (lexer->lookahead != *p) return false;
    advance(lexer);
  }
  return !is_ident_char(lexer->lookahead);
}

bool tree_sitter_llmsys_external_scanner_scan(void *payload, TSLexer *lexer,
                                              const bool *valid_symbols) {
  (void)payload;
  // In error recovery every symbol is valid: read identifiers only.
  bool recovering = valid_symbols[UNIT] && valid_symbols[UNIT_SUFFIX];

  if (valid_symbols[UNIT_SUFFIX] && !recovering) {
    if (lexer->lookahead != '/') return false;
    lexer->result_symbol = UNIT_SUFFIX;
    return scan_glued_parts(lexer);
  }

  bool same_line = valid_symbols[UNIT] && !recovering;
  bool skipped_comment = false;
  // Skip whitespace, noting a line break; a block comment on the unit's line
  // is skipped too ("80 /* c */ GiB" is a quantity in LLMSys.g4).
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      lexer->advance(lexer, true);
    } else if (c == '\n') {
      if (skipped_comment) return false;  // let the lexer keep the comment
      same_line = false;
      lexer->advance(lexer, true);
    } else if (c == '/' && same_line) {
      lexer->advance(lexer, true);
      if (lexer->lookahead != '*') return false;  // "/" or "//": not a unit
      lexer->advance(lexer, true);
      for (;;) {
        if (lexer->lookahead == 0 || lexer->lookahead == '\n') return false;
        int32_t prev = lexer->lookahead;
        lexer->advance(lexer, true);
        if (prev == '*' && lexer->lookahead == '/') {
          lexer->advance(lexer, true);
          break;
        }
      }
      skipped_comment = true;
    } else {
      break;
    }
  }

  if (same_line) {
    if (lexer->lookahead == '%') {
      lexer->result_symbol = UNIT;
      scan_atom(lexer);
      scan_glued_parts(lexer);
      return true;
    }
    if (!scan_identifier(lexer)) return false;  // a keyword, or no word
    // A plain word: a unit, unless it starts the next member.
    if (lexer->lookahead == '^' || lexer->lookahead == '/') {
      lexer->result_symbol = UNIT;
      if (lexer->lookahead == '^') {
        advance(lexer);
        scan_exponent_number(lexer);
      }
      scan_glued_parts(lexer);
      return true;
    }
    if (valid_symbols[IDENTIFIER] && starts_member(lexer)) {
      lexer->result_symbol = IDENTIFIER;
      return true;
    }
    lexer->result_symbol = UNIT;
    return true;
  }

  if (!valid_symbols[IDENTIFIER]) return false;
  lexer->result_symbol = IDENTIFIER;
  return scan_identifier(lexer);
}
