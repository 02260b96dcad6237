// The grammar of .llmsys files (docs/language.md is the user's reference).
//
// Only syntax lives here: which entity kinds and fields exist, units, and
// every other meaning are checked in lib/Sema against the schema. Statements
// need no separator; ';' is allowed between them. A unit follows its number
// on the same line ("80 GiB", "3.35TB/s"); the parts of a compound unit are
// glued ("TB/s", not "TB / s").
grammar LLMSys;

@lexer::members {
  // Set by the formatter's view of a file (lib/Parse/SourceTokens.cpp):
  // line comments become hidden tokens instead of being skipped, so that
  // the formatter keeps them. Off when a file is parsed.
  bool KeepLineComments = false;
}

@parser::members {
  // True when the next token starts on the line where the previous one ended:
  // "2048 tokens" is a quantity, but a number ending a line is not followed
  // by a unit taken from the next statement.
  bool onSameLine() {
    antlr4::Token *Prev = _input->LT(-1);
    antlr4::Token *Next = _input->LT(1);
    if (!Prev || !Next) return false;
    size_t PrevEndLine = Prev->getLine();
    for (char C : Prev->getText()) if (C == '\n') ++PrevEndLine;
    return Next->getLine() == PrevEndLine;
  }
  // True when the next token touches the previous one ("TB/s").
  bool glued() {
    antlr4::Token *Prev = _input->LT(-1);
    antlr4::Token *Next = _input->LT(1);
    return Prev && Next && Next->getStartIndex() == Prev->getStopIndex() + 1;
  }
  bool glued2() {
    antlr4::Token *A = _input->LT(1);
    antlr4::Token *B = _input->LT(2);
    return glued() && A && B && B->getStartIndex() == A->getStopIndex() + 1;
  }
}

// ---------------------------------------------------------------- structure

// Imports come first; the parser library says so when one comes later.
file        : topDecl* EOF ;
topDecl     : importDecl | entityDecl | expectDecl | SEMI ;
importDecl  : IMPORT (dottedName | STRING) ;

// model gpt3 extends gpt3_base { ... }      sweep plans over pretrain { ... }
// model llama = hf_config("llama.json") { max_seq = 4096 }
// (Sema accepts only hf_config(...) as the initializer, only for models.)
entityDecl  : kind=IDENT name=IDENT (EXTENDS parent=dottedName)?
              (OVER target=dottedName)? block
            | kind=IDENT name=IDENT ASSIGN init=expr block?
            ;

// A lone expression: how the schema's default values are read.
exprOnly    : expr EOF ;

// expect pretrain.mfu in 0.35 .. 0.60
expectDecl  : EXPECT expr ;

block       : LBRACE member* RBRACE ;

member
  : dottedName ASSIGN value                        # assignMember
  | path=dottedName (EXTENDS parent=dottedName)? block  # blockMember
  | dottedName op=(LT | LE | GT | GE) expr         # boundMember
  | dottedName IN expr                             # axisMember
  | WHERE expr                                     # whereMember
  | dir=(MINIMIZE | MAXIMIZE) expr                 # objectiveMember
  | PARETO expr (COMMA expr)+                      # paretoMember
  | KEEP expr                                      # keepMember
  | SEMI                                           # emptyMember
  ;

// A value is an expression, optionally followed by a block that refines it:
//   mapping = megatron_3d { tp = 4 }        schedule = interleaved_1f1b { virtual_stages = 3 }
value       : expr block?
            | block
            ;

// -------------------------------------------------------------- expressions

expr
  : primary                                        # primaryExpr
  | LPAREN expr RPAREN                             # parenExpr
  | op=(MINUS | PLUS) expr                         # unaryExpr
  | NOT expr                                       # notExpr
  | expr op=(STAR | SLASH) expr                    # mulExpr
  | expr op=(PLUS | MINUS) expr                    # addExpr
  | expr DOTDOT expr STEP mul=STAR? expr           # steppedRangeExpr
  | expr DOTDOT expr                               # rangeExpr
  | expr op=(LT | LE | GT | GE | EQ | NE) expr     # compareExpr
  | expr IN expr                                   # inExpr
  | expr AND expr                                  # andExpr
  | expr OR expr                                   # orExpr
  ;

primary
  : NUMBER ({onSameLine()}? unit)?                 # numberPrimary
  | NUMWORD ({glued2()}? SLASH unitAtom)*          # numWordPrimary
  | STRING                                         # stringPrimary
  | (TRUE | FALSE)                                 # boolPrimary
  | IDENT LPAREN (expr (COMMA expr)*)? RPAREN      # callPrimary
  | dottedName                                     # namePrimary
  | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK     # listPrimary
  ;

unit        : unitAtom ({glued2()}? SLASH unitAtom)* ;
unitAtom    : (IDENT | PERCENT) ({glued2()}? CARET NUMBER)? ;

dottedName  : IDENT (DOT IDENT)* ;

// ------------------------------------------------------------------- tokens

IMPORT   : 'import' ;
EXTENDS  : 'extends' ;
OVER     : 'over' ;
EXPECT   : 'expect' ;
IN       : 'in' ;
WHERE    : 'where' ;
MINIMIZE : 'minimize' ;
MAXIMIZE : 'maximize' ;
PARETO   : 'pareto' ;
KEEP     : 'keep' ;
STEP     : 'step' ;
TRUE     : 'true' ;
FALSE    : 'false' ;
AND      : 'and' ;
OR       : 'or' ;
NOT      : 'not' ;

LBRACE : '{' ;  RBRACE : '}' ;
LPAREN : '(' ;  RPAREN : ')' ;
LBRACK : '[' ;  RBRACK : ']' ;
SEMI   : ';' ;  COMMA  : ',' ;
DOTDOT : '..' ; DOT    : '.' ;
LE : '<=' ; GE : '>=' ; EQ : '==' ; NE : '!=' ;
LT : '<' ;  GT : '>' ;  ASSIGN : '=' ;
PLUS : '+' ; MINUS : '-' ; STAR : '*' ; SLASH : '/' ;
CARET : '^' ; PERCENT : '%' ;

NUMBER   : DIGITS ('.' DIGITS)? EXPONENT?
         | '.' DIGITS EXPONENT?
         ;
// A number glued to letters: "80GiB", "1e9tokens", or the enum word "1f1b".
// Sema splits it; listed after NUMBER so that "1e9" stays a NUMBER.
NUMWORD  : DIGITS ('.' DIGITS)? EXPONENT? [a-zA-Z_\u00B5] [a-zA-Z0-9_\u00B5]* ;
IDENT    : [a-zA-Z_\u00B5] [a-zA-Z0-9_\u00B5]* ;
// An unterminated string is still a STRING token; the parser library reports
// it (a missing closing quote is clearer than a cascade of syntax errors).
STRING   : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"'? ;

fragment DIGITS   : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;

// Whitespace and line comments make no token (the token stream keeps every
// token of a file; docs/building.md, "Memory"), but for the formatter.
LINE_COMMENT  : '//' ~[\r\n]*
                { if (KeepLineComments) setChannel(HIDDEN); else skip(); } ;
// Matches an unterminated comment up to the end of the file too; the parser
// library reports that case.
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;
WS            : [ \t\r\n\f]+ -> skip ;
// Anything else (stray or non-ASCII characters) becomes one token that the
// parser library reports and drops.
BAD_CHAR      : . -> channel(HIDDEN) ;
