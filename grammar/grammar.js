// grammar/grammar.js — tree-sitter grammar for .tfs (docs/language.md); node and field names follow tree-sitter-python.

// Binding strength, loosest first. Python's table: lambda < if-else < or <
// and < not < comparisons < | < ^ < & < shifts < + - < * / // % @ < unary <
// ** < call/attribute/subscript.
const PREC = {
  lambda: -2,
  conditional: -1,
  parenthesized_expression: 1,
  or: 10,
  and: 11,
  not: 12,
  compare: 13,
  bitwise_or: 14,
  bitwise_xor: 15,
  bitwise_and: 16,
  shift: 17,
  plus: 18,
  times: 19,
  unary: 20,
  power: 21,
  call: 22,
};

// Binary operators: [associativity, operator, precedence].
const BINARY_OPERATORS = [
  [prec.left, '+', PREC.plus],
  [prec.left, '-', PREC.plus],
  [prec.left, '*', PREC.times],
  [prec.left, '@', PREC.times],
  [prec.left, '/', PREC.times],
  [prec.left, '%', PREC.times],
  [prec.left, '//', PREC.times],
  [prec.right, '**', PREC.power],
  [prec.left, '|', PREC.bitwise_or],
  [prec.left, '&', PREC.bitwise_and],
  [prec.left, '^', PREC.bitwise_xor],
  [prec.left, '<<', PREC.shift],
  [prec.left, '>>', PREC.shift],
];

const AUGMENTED_OPERATORS = [
  '+=', '-=', '*=', '/=', '//=', '%=', '**=', '@=',
  '&=', '|=', '^=', '<<=', '>>=',
];

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
const sep1 = (rule, separator) => seq(rule, repeat(seq(separator, rule)));

module.exports = grammar({
  name: 'tfs',

  // Indentation, line ends and strings need context the lexer lacks: see src/scanner.c.
  // Order matters: it is the TokenType enum in scanner.c.
  externals: ($) => [
    $._newline,
    $._indent,
    $._dedent,
    $.string_start,
    $._string_content,
    $.escape_interpolation,
    $.string_end,
  ],

  extras: ($) => [
    $.comment,
    /[\s\f\uFEFF\u2060\u200B]|\r?\n/,
    $.line_continuation,
  ],

  // Hidden choice nodes that still show up in node-types.json, so consumers
  // can switch on "any expression" / "any pattern".
  supertypes: ($) => [
    $._simple_statement,
    $._compound_statement,
    $.expression,
    $.primary_expression,
    $.pattern,
    $.parameter,
  ],

  inline: ($) => [
    $._simple_statement,
    $._compound_statement,
    $._suite,
    $._expressions,
    $._left_hand_side,
  ],

  // `a, b = e` vs `a, b` and `(a, b) = e` vs `(a, b)` are only decided at
  // the `=`: let GLR carry both readings until then.
  conflicts: ($) => [
    [$.primary_expression, $.pattern],
    [$.primary_expression, $.list_splat_pattern],
    [$.tuple, $.tuple_pattern],
    [$.list, $.list_pattern],
  ],

  word: ($) => $.identifier,

  rules: {
    module: ($) => repeat($._statement),

    _statement: ($) => choice($._simple_statements, $._compound_statement),

    // ---------------------------------------------------------------- simple statements

    _simple_statements: ($) => seq(
      sep1($._simple_statement, ';'),
      optional(';'),
      $._newline,
    ),

    _simple_statement: ($) => choice(
      $.expression_statement,
      $.return_statement,
      $.pass_statement,
      $.break_statement,
      $.continue_statement,
      $.assert_statement,
      $.global_statement,
      $.nonlocal_statement,
      $.import_statement,
      $.import_from_statement,
      $.raise_statement,
      $.delete_statement,
    ),

    expression_statement: ($) => choice(
      $.expression,
      seq(commaSep1($.expression), optional(',')),
      $.assignment,
      $.augmented_assignment,
      $.yield,
    ),

    // `a = b = e` nests: the right side of the outer one is the inner assignment.
    assignment: ($) => seq(
      field('left', $._left_hand_side),
      choice(
        seq('=', field('right', $._right_hand_side)),
        seq(':', field('type', $.type)),
        seq(':', field('type', $.type), '=', field('right', $._right_hand_side)),
      ),
    ),

    augmented_assignment: ($) => seq(
      field('left', $._left_hand_side),
      field('operator', choice(...AUGMENTED_OPERATORS)),
      field('right', $._right_hand_side),
    ),

    _left_hand_side: ($) => choice($.pattern, $.pattern_list),

    _right_hand_side: ($) => choice(
      $.expression,
      $.expression_list,
      $.assignment,
      $.augmented_assignment,
      $.pattern_list,
      $.yield,
    ),

    type: ($) => $.expression,

    return_statement: ($) => seq('return', optional($._expressions)),

    pass_statement: (_) => prec.left('pass'),
    break_statement: (_) => prec.left('break'),
    continue_statement: (_) => prec.left('continue'),

    assert_statement: ($) => seq('assert', commaSep1($.expression)),

    global_statement: ($) => seq('global', commaSep1($.identifier)),
    nonlocal_statement: ($) => seq('nonlocal', commaSep1($.identifier)),

    import_statement: ($) => seq('import', $._import_list),

    import_from_statement: ($) => seq(
      'from',
      field('module_name', $.dotted_name),
      'import',
      choice(
        $.wildcard_import,
        $._import_list,
        seq('(', $._import_list, ')'),
      ),
    ),

    _import_list: ($) => seq(
      commaSep1(field('name', choice($.dotted_name, $.aliased_import))),
      optional(','),
    ),

    aliased_import: ($) => seq(
      field('name', $.dotted_name),
      'as',
      field('alias', $.identifier),
    ),

    wildcard_import: (_) => '*',

    dotted_name: ($) => prec(1, sep1($.identifier, '.')),

    raise_statement: ($) => seq(
      'raise',
      optional($._expressions),
      optional(seq('from', field('cause', $.expression))),
    ),

    delete_statement: ($) => seq('del', $._expressions),

    // ---------------------------------------------------------------- compound statements

    _compound_statement: ($) => choice(
      $.if_statement,
      $.for_statement,
      $.while_statement,
      $.try_statement,
      $.with_statement,
      $.function_definition,
      $.class_definition,
      $.decorated_definition,
    ),

    if_statement: ($) => seq(
      'if',
      field('condition', $.expression),
      ':',
      field('consequence', $._suite),
      repeat(field('alternative', $.elif_clause)),
      optional(field('alternative', $.else_clause)),
    ),

    elif_clause: ($) => seq(
      'elif',
      field('condition', $.expression),
      ':',
      field('consequence', $._suite),
    ),

    else_clause: ($) => seq('else', ':', field('body', $._suite)),

    for_statement: ($) => seq(
      'for',
      field('left', $._left_hand_side),
      'in',
      field('right', $._expressions),
      ':',
      field('body', $._suite),
      optional(field('alternative', $.else_clause)),
    ),

    while_statement: ($) => seq(
      'while',
      field('condition', $.expression),
      ':',
      field('body', $._suite),
      optional(field('alternative', $.else_clause)),
    ),

    try_statement: ($) => seq(
      'try',
      ':',
      field('body', $._suite),
      choice(
        seq(
          repeat1($.except_clause),
          optional($.else_clause),
          optional($.finally_clause),
        ),
        $.finally_clause,
      ),
    ),

    // `except E as e:` keeps the name in an as_pattern, as tree-sitter-python does.
    except_clause: ($) => seq(
      'except',
      optional(field('value', choice($.expression, $.as_pattern))),
      ':',
      field('body', $._suite),
    ),

    finally_clause: ($) => seq('finally', ':', field('body', $._suite)),

    with_statement: ($) => seq(
      'with',
      $.with_clause,
      ':',
      field('body', $._suite),
    ),

    with_clause: ($) => commaSep1($.with_item),

    with_item: ($) => field('value', choice($.expression, $.as_pattern)),

    as_pattern: ($) => seq(
      field('value', $.expression),
      'as',
      field('alias', $.as_pattern_target),
    ),

    as_pattern_target: ($) => $.pattern,

    function_definition: ($) => seq(
      'def',
      field('name', $.identifier),
      field('parameters', $.parameters),
      optional(seq('->', field('return_type', $.type))),
      ':',
      field('body', $._suite),
    ),

    parameters: ($) => seq('(', optional($._parameters), ')'),

    // no annotations in a lambda's parameters (`lambda x: x` would be ambiguous)
    lambda_parameters: ($) => seq(commaSep1($._lambda_parameter), optional(',')),

    _lambda_parameter: ($) => choice(
      $.identifier,
      $.default_parameter,
      $.list_splat_pattern,
      $.dictionary_splat_pattern,
      $.keyword_separator,
      $.positional_separator,
    ),

    _parameters: ($) => seq(commaSep1($.parameter), optional(',')),

    parameter: ($) => choice(
      $.identifier,
      $.typed_parameter,
      $.default_parameter,
      $.typed_default_parameter,
      $.list_splat_pattern,
      $.dictionary_splat_pattern,
      $.keyword_separator,
      $.positional_separator,
    ),

    default_parameter: ($) => seq(
      field('name', $.identifier),
      '=',
      field('value', $.expression),
    ),

    // `x: int`, `*args: int`, `**kw: str`: the annotation is checked, not used.
    typed_parameter: ($) => seq(
      choice($.identifier, $.list_splat_pattern, $.dictionary_splat_pattern),
      ':',
      field('type', $.type),
    ),

    typed_default_parameter: ($) => seq(
      field('name', $.identifier),
      ':',
      field('type', $.type),
      '=',
      field('value', $.expression),
    ),

    // A bare `*` in a parameter list: the parameters after it are keyword-only.
    keyword_separator: (_) => '*',

    // A `/` in a parameter list: the parameters before it are positional-only.
    positional_separator: (_) => '/',

    list_splat_pattern: ($) => seq('*', choice($.identifier, $.attribute, $.subscript)),

    dictionary_splat_pattern: ($) => seq('**', $.identifier),

    decorated_definition: ($) => seq(
      repeat1(field('decorator', $.decorator)),
      field('definition', choice($.function_definition, $.class_definition)),
    ),

    decorator: ($) => seq('@', $.expression, $._newline),

    class_definition: ($) => seq(
      'class',
      field('name', $.identifier),
      optional(field('superclasses', $.argument_list)),
      ':',
      field('body', $._suite),
    ),

    // A suite is either the rest of the line or an indented block; both are `block` nodes.
    _suite: ($) => choice(
      alias($._simple_statements, $.block),
      seq($._indent, $.block),
      alias($._newline, $.block),
    ),

    block: ($) => seq(repeat($._statement), $._dedent),

    // ---------------------------------------------------------------- patterns (assignment targets)

    pattern: ($) => choice(
      $.identifier,
      $.subscript,
      $.attribute,
      $.list_splat_pattern,
      $.tuple_pattern,
      $.list_pattern,
    ),

    pattern_list: ($) => seq(
      $.pattern,
      choice(',', seq(repeat1(seq(',', $.pattern)), optional(','))),
    ),

    tuple_pattern: ($) => seq('(', optional($._patterns), ')'),
    list_pattern: ($) => seq('[', optional($._patterns), ']'),
    _patterns: ($) => seq(commaSep1($.pattern), optional(',')),

    // ---------------------------------------------------------------- expressions

    _expressions: ($) => choice($.expression, $.expression_list),

    expression_list: ($) => prec.right(seq(
      $.expression,
      choice(',', seq(repeat1(seq(',', $.expression)), optional(','))),
    )),

    expression: ($) => choice(
      $.comparison_operator,
      $.not_operator,
      $.boolean_operator,
      $.lambda,
      $.primary_expression,
      $.conditional_expression,
    ),

    primary_expression: ($) => choice(
      $.binary_operator,
      $.identifier,
      $.string,
      $.concatenated_string,
      $.integer,
      $.float,
      $.true,
      $.false,
      $.none,
      $.ellipsis,
      $.unary_operator,
      $.attribute,
      $.subscript,
      $.call,
      $.list,
      $.tuple,
      $.dictionary,
      $.set,
      $.list_comprehension,
      $.dictionary_comprehension,
      $.set_comprehension,
      $.generator_expression,
      $.parenthesized_expression,
    ),

    not_operator: ($) => prec(PREC.not, seq('not', field('argument', $.expression))),

    boolean_operator: ($) => choice(
      prec.left(PREC.and, seq(
        field('left', $.expression),
        field('operator', 'and'),
        field('right', $.expression),
      )),
      prec.left(PREC.or, seq(
        field('left', $.expression),
        field('operator', 'or'),
        field('right', $.expression),
      )),
    ),

    binary_operator: ($) => choice(...BINARY_OPERATORS.map(([assoc, op, p]) =>
      assoc(p, seq(
        field('left', $.primary_expression),
        field('operator', op),
        field('right', $.primary_expression),
      )))),

    unary_operator: ($) => prec(PREC.unary, seq(
      field('operator', choice('+', '-', '~')),
      field('argument', $.primary_expression),
    )),

    // `a < b <= c`: operands are the unnamed children, each operator is in field `operators`.
    comparison_operator: ($) => prec.left(PREC.compare, seq(
      $.primary_expression,
      repeat1(seq(
        field('operators', choice(
          '<', '<=', '==', '!=', '>=', '>',
          'in', alias(seq('not', 'in'), 'not in'),
          'is', alias(seq('is', 'not'), 'is not'),
        )),
        $.primary_expression,
      )),
    )),

    lambda: ($) => prec(PREC.lambda, seq(
      'lambda',
      field('parameters', optional($.lambda_parameters)),
      ':',
      field('body', $.expression),
    )),

    // `body if condition else alternative`
    conditional_expression: ($) => prec.right(PREC.conditional, seq(
      field('body', $.expression),
      'if',
      field('condition', $.expression),
      'else',
      field('alternative', $.expression),
    )),

    attribute: ($) => prec(PREC.call, seq(
      field('object', $.primary_expression),
      '.',
      field('attribute', $.identifier),
    )),

    // `x[a, b:c]` has one `subscript` field per comma-separated item.
    subscript: ($) => prec(PREC.call, seq(
      field('value', $.primary_expression),
      '[',
      commaSep1(field('subscript', choice($.expression, $.slice))),
      optional(','),
      ']',
    )),

    // `start:stop:step`, each part optional.
    slice: ($) => seq(
      optional(field('start', $.expression)),
      ':',
      optional(field('stop', $.expression)),
      optional(seq(':', optional(field('step', $.expression)))),
    ),

    // `f(x for x in l)`: a lone generator expression needs no parentheses of its own.
    call: ($) => prec(PREC.call, seq(
      field('function', $.primary_expression),
      field('arguments', choice($.generator_expression, $.argument_list)),
    )),

    argument_list: ($) => seq(
      '(',
      optional(commaSep1(choice(
        $.expression,
        $.list_splat,
        $.dictionary_splat,
        $.keyword_argument,
      ))),
      optional(','),
      ')',
    ),

    keyword_argument: ($) => seq(
      field('name', $.identifier),
      '=',
      field('value', $.expression),
    ),

    list_splat: ($) => seq('*', $.expression),
    dictionary_splat: ($) => seq('**', $.expression),

    parenthesized_expression: ($) => prec(PREC.parenthesized_expression,
      seq('(', choice($.expression, $.yield), ')')),

    // `yield`, `yield x`, `yield a, b`, `yield from it`: a statement, the
    // right side of an assignment, or parenthesized.
    yield: ($) => prec.right(seq(
      'yield',
      choice(
        seq('from', field('argument', $.expression)),
        optional(field('argument', $._expressions)),
      ),
    )),

    tuple: ($) => seq('(', optional($._collection_elements), ')'),
    list: ($) => seq('[', optional($._collection_elements), ']'),

    _collection_elements: ($) => seq(
      commaSep1(choice($.expression, $.list_splat)),
      optional(','),
    ),

    dictionary: ($) => seq(
      '{',
      optional(commaSep1(choice($.pair, $.dictionary_splat))),
      optional(','),
      '}',
    ),

    set: ($) => seq('{', $._collection_elements, '}'),

    // ---------------------------------------------------------------- comprehensions

    list_comprehension: ($) => seq('[', field('body', $.expression), $._comprehension_clauses, ']'),
    dictionary_comprehension: ($) => seq('{', field('body', $.pair), $._comprehension_clauses, '}'),
    set_comprehension: ($) => seq('{', field('body', $.expression), $._comprehension_clauses, '}'),
    generator_expression: ($) => seq('(', field('body', $.expression), $._comprehension_clauses, ')'),

    _comprehension_clauses: ($) => seq($.for_in_clause, repeat(choice($.for_in_clause, $.if_clause))),

    // As in Python, the iterable is not a bare conditional expression: the
    // `if` after it starts an if_clause.
    for_in_clause: ($) => prec.left(seq(
      'for',
      field('left', $._left_hand_side),
      'in',
      field('right', $.expression),
    )),

    if_clause: ($) => seq('if', $.expression),

    pair: ($) => seq(
      field('key', $.expression),
      ':',
      field('value', $.expression),
    ),

    // ---------------------------------------------------------------- literals

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,

    true: (_) => 'True',
    false: (_) => 'False',
    none: (_) => 'None',
    ellipsis: (_) => '...',

    integer: (_) => token(choice(
      /0[xX](_?[0-9a-fA-F])+/,
      /0[bB](_?[01])+/,
      /0[oO](_?[0-7])+/,
      /[0-9](_?[0-9])*[jJ]?/,
    )),

    // `1.0`, `2.`, `.5`, `1e-3`, `1.5E+2`
    float: (_) => {
      const digits = /[0-9](_?[0-9])*/;
      const exponent = seq(/[eE][+-]?/, digits);
      // an imaginary literal (`2.5j`, `1e3j`) is a float with a j suffix
      return token(seq(choice(
        seq(digits, '.', optional(digits), optional(exponent)),
        seq('.', digits, optional(exponent)),
        seq(digits, exponent),
      ), optional(/[jJ]/)));
    },

    // The scanner owns the delimiters and the raw text; escapes and `{...}`
    // are parsed here so that consumers see them as nodes.
    string: ($) => seq(
      $.string_start,
      repeat(choice($.interpolation, $.string_content)),
      $.string_end,
    ),

    string_content: ($) => prec.right(repeat1(choice(
      $.escape_interpolation,
      $.escape_sequence,
      $._not_escape_sequence,
      $._string_content,
    ))),

    concatenated_string: ($) => seq($.string, repeat1($.string)),

    escape_sequence: (_) => token.immediate(prec(1, seq(
      '\\',
      choice(
        /x[0-9a-fA-F]{2}/,
        /u[0-9a-fA-F]{4}/,
        /U[0-9a-fA-F]{8}/,
        /[0-7]{1,3}/,
        /N\{[^}]+\}/,
        /\r?\n/,
        /['"abfnrtv\\]/,
      ),
    ))),

    // A backslash before a character with no escape meaning is kept as text.
    _not_escape_sequence: (_) => token.immediate('\\'),

    // `{expr!r:spec}` inside an f-string; `{expr=}` prints the expression's
    // text before its value (Python 3.8's self-documenting form).
    interpolation: ($) => seq(
      '{',
      field('expression', $._f_expression),
      optional('='),
      optional(field('type_conversion', $.type_conversion)),
      optional(field('format_specifier', $.format_specifier)),
      '}',
    ),

    _f_expression: ($) => choice($.expression, $.expression_list),

    type_conversion: (_) => /![a-z]/,

    // The node's text is `:` followed by the spec, e.g. `:.3f`.  Lexical
    // precedence over `comment`: in `{255:#x}` the `#` is part of the spec.
    // A nested field (`{x:.{p}f}`) is a format_expression: an interpolation
    // inside the spec, evaluated before the outer value is formatted.
    format_specifier: ($) => seq(':', repeat(choice(
      token.immediate(prec(1, /[^{}\n]+/)),
      alias($.interpolation, $.format_expression),
    ))),

    comment: (_) => token(seq('#', /.*/)),

    line_continuation: (_) => token(seq('\\', choice(seq(optional('\r'), '\n'), '\0'))),
  },
});
