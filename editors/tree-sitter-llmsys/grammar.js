/**
 * Tree-sitter grammar for .llmsys files.
 *
 * It accepts the language of grammar/LLMSys.g4 (the reference; keep the two
 * in step). Where ANTLR needs semantic predicates, src/scanner.c does the
 * same work:
 *   - a unit follows its number on the same line ("80 GiB", not a word on
 *     the next line), and is not a keyword ("1 .. 8 step 2");
 *   - the parts of a compound unit are glued ("TB/s", "m^2"); a spaced "/"
 *     divides ("6 GB / 2");
 *   - a number glued to letters ("80GiB", "1f1b") may carry glued "/unit"
 *     parts ("5GB/s");
 *   - a word after a number on its line is the next member, not a unit,
 *     where only that parses ("tp = 8  pp = 4": LLMSys.g4's adaptive
 *     prediction);
 *   - keywords are reserved: an identifier is never one.
 *
 * Node names follow the parser rules of LLMSys.g4 where one exists.
 */

// Operator precedences, loosest first, as the alternatives of `expr` in
// LLMSys.g4 (an earlier binary alternative binds tighter there).
const PREC = {
  or: 1,
  and: 2,
  in: 3,
  compare: 4,
  range: 5,
  add: 6,
  mul: 7,
  unary: 8,
  call: 9,
};

const DIGITS = /[0-9]+/;

module.exports = grammar({
  name: 'llmsys',

  // Whitespace and comments may appear between any two tokens.
  extras: $ => [/[ \t\r\n\f]/, $.comment],

  // The scanner also reads identifiers, so that a keyword is never one
  // (keywords are reserved in LLMSys.g4, in every context).
  externals: $ => [$.unit, $._unit_suffix, $.identifier],

  rules: {
    // file : topDecl* EOF ;  (imports first is checked by the parser library)
    source_file: $ => repeat($._top_declaration),

    _top_declaration: $ => choice(
      $.import_declaration,
      $.entity_declaration,
      $.expect_declaration,
      ';',
    ),

    // importDecl : IMPORT (dottedName | STRING) ;
    import_declaration: $ => seq(
      'import',
      field('module', choice($.dotted_name, $.string)),
    ),

    // entityDecl : kind=IDENT name=IDENT (EXTENDS dottedName)? (OVER dottedName)? block
    //            | kind=IDENT name=IDENT ASSIGN init=expr block? ;
    entity_declaration: $ => seq(
      field('kind', $.identifier),
      field('name', $.identifier),
      choice(
        seq(
          optional(seq('extends', field('parent', $.dotted_name))),
          optional(seq('over', field('target', $.dotted_name))),
          field('body', $.block),
        ),
        seq(
          '=',
          field('init', $._expression),
          optional(field('body', $.block)),
        ),
      ),
    ),

    // expectDecl : EXPECT expr ;
    expect_declaration: $ => seq('expect', field('condition', $._expression)),

    // block : LBRACE member* RBRACE ;
    block: $ => seq('{', repeat($._member), '}'),

    _member: $ => choice(
      $.assignment,
      $.block_member,
      $.bound_member,
      $.axis_member,
      $.where_member,
      $.objective_member,
      $.pareto_member,
      $.keep_member,
      ';',
    ),

    // dottedName ASSIGN value ;  value : expr block? | block ;
    assignment: $ => seq(
      field('field', $.dotted_name),
      '=',
      choice(
        seq(field('value', $._expression), optional(field('body', $.block))),
        field('body', $.block),
      ),
    ),

    // path=dottedName (EXTENDS parent=dottedName)? block
    block_member: $ => seq(
      field('field', $.dotted_name),
      optional(seq('extends', field('parent', $.dotted_name))),
      field('body', $.block),
    ),

    // dottedName op=(LT | LE | GT | GE) expr
    bound_member: $ => seq(
      field('field', $.dotted_name),
      field('operator', choice('<', '<=', '>', '>=')),
      field('bound', $._expression),
    ),

    // dottedName IN expr
    axis_member: $ => seq(
      field('field', $.dotted_name),
      'in',
      field('values', $._expression),
    ),

    where_member: $ => seq('where', field('condition', $._expression)),

    objective_member: $ => seq(
      field('direction', choice('minimize', 'maximize')),
      field('figure', $._expression),
    ),

    // PARETO expr (COMMA expr)+
    pareto_member: $ => seq(
      'pareto',
      field('figure', $._expression),
      repeat1(seq(',', field('figure', $._expression))),
    ),

    keep_member: $ => seq('keep', field('count', $._expression)),

    // ------------------------------------------------------------ expressions

    _expression: $ => choice(
      $._primary,
      $.parenthesized_expression,
      $.unary_expression,
      $.binary_expression,
      $.range_expression,
    ),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    // op=(MINUS | PLUS) expr  |  NOT expr  (bind tighter than any binary op)
    unary_expression: $ => prec(PREC.unary, seq(
      field('operator', choice('-', '+', 'not')),
      field('operand', $._expression),
    )),

    binary_expression: $ => {
      const table = [
        [PREC.mul, choice('*', '/')],
        [PREC.add, choice('+', '-')],
        [PREC.compare, choice('<', '<=', '>', '>=', '==', '!=')],
        [PREC.in, 'in'],
        [PREC.and, 'and'],
        [PREC.or, 'or'],
      ];
      return choice(...table.map(([p, op]) => prec.left(p, seq(
        field('left', $._expression),
        field('operator', op),
        field('right', $._expression),
      ))));
    },

    // expr DOTDOT expr (STEP STAR? expr)?
    range_expression: $ => prec.left(PREC.range, seq(
      field('low', $._expression),
      '..',
      field('high', $._expression),
      optional(seq(
        'step',
        optional(field('multiply', '*')),
        field('step', $._expression),
      )),
    )),

    _primary: $ => choice(
      $.number,
      $.number_word,
      $.quantity,
      $.string,
      $.boolean,
      $.call,
      alias($.dotted_name, $.reference),
      $.list,
    ),

    // NUMBER unit (on the same line), or NUMWORD with glued "/unit" parts.
    quantity: $ => choice(
      seq(field('value', $.number), field('unit', $.unit)),
      seq(field('value', $.number_word), field('unit', alias($._unit_suffix, $.unit))),
    ),

    boolean: _ => choice('true', 'false'),

    // IDENT LPAREN (expr (COMMA expr)*)? RPAREN
    call: $ => prec(PREC.call, seq(
      field('function', $.identifier),
      '(',
      optional(seq(
        field('argument', $._expression),
        repeat(seq(',', field('argument', $._expression))),
      )),
      ')',
    )),

    // LBRACK (expr (COMMA expr)* COMMA?)? RBRACK
    list: $ => seq(
      '[',
      optional(seq(
        $._expression,
        repeat(seq(',', $._expression)),
        optional(','),
      )),
      ']',
    ),

    // dottedName : IDENT (DOT IDENT)* ;
    dotted_name: $ => seq($.identifier, repeat(seq('.', $.identifier))),

    // ---------------------------------------------------------------- tokens

    // NUMBER : DIGITS ('.' DIGITS)? EXPONENT? | '.' DIGITS EXPONENT? ;
    // Listed before number_word: "1e9" (both match) is a NUMBER.
    number: _ => token(choice(
      seq(DIGITS, optional(seq('.', DIGITS)), optional(/[eE][+-]?[0-9]+/)),
      seq('.', DIGITS, optional(/[eE][+-]?[0-9]+/)),
    )),

    // NUMWORD : DIGITS ('.' DIGITS)? EXPONENT? [a-zA-Z_µ] [a-zA-Z0-9_µ]* ;
    number_word: _ => token(seq(
      DIGITS,
      optional(seq('.', DIGITS)),
      optional(/[eE][+-]?[0-9]+/),
      /[a-zA-Z_\u00B5][a-zA-Z0-9_\u00B5]*/,
    )),

    // STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"'? ;
    // (an unterminated string is a token; the parser library reports it)
    string: _ => token(seq('"', repeat(choice(/[^"\\\r\n]/, /\\[^\r\n]/)), optional('"'))),

    // LINE_COMMENT and BLOCK_COMMENT. An unterminated block comment is an
    // error here, as the parser library reports it.
    comment: _ => token(choice(
      seq('//', /[^\r\n]*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
    )),
  },
});
