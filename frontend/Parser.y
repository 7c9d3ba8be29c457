/* The Bison grammar of the .spmd language: tokens -> AST (declarations, statements, expressions). */
%require "3.8"
%language "c++"
%skeleton "lalr1.cc"
%define api.namespace {spmdc::yy}
%define api.parser.class {Parser}
%define api.value.type variant
%define api.token.constructor
%define api.location.type {spmdc::SrcSpan}
%define parse.error custom
%define parse.lac full
%locations
%parse-param {void *Scanner} {spmdc::ParserState &PS}
%lex-param {void *Scanner}

%code requires {
// The grammar follows C's (ANSI C yacc grammar shape: LALR(1) with the
// dangling else resolved by precedence), extended with ISPC's qualifiers and
// statements and the `everywhere` / `crev` additions. Type names come from
// the lexer as TYPE_NAME tokens.
#include "frontend/ParserSupport.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                                                \
  do {                                                                                             \
    if (N) {                                                                                       \
      (Cur).Begin = YYRHSLOC(Rhs, 1).Begin;                                                        \
      (Cur).BeginOff = YYRHSLOC(Rhs, 1).BeginOff;                                                  \
      (Cur).End = YYRHSLOC(Rhs, N).End;                                                            \
      (Cur).EndOff = YYRHSLOC(Rhs, N).EndOff;                                                      \
    } else {                                                                                       \
      (Cur).Begin = (Cur).End = YYRHSLOC(Rhs, 0).End;                                              \
      (Cur).BeginOff = (Cur).EndOff = YYRHSLOC(Rhs, 0).EndOff;                                     \
    }                                                                                              \
  } while (0)
}

%code {
#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/SourceManager.h"

#include <algorithm>
#include <cctype>

namespace spmdc {
yy::Parser::symbol_type spmdcLex(void *Scanner, size_t StackDepth);
void *createScanner(ParserState &PS);
void destroyScanner(void *Scanner);

namespace {
void addSpec(ParserState &PS, DeclSpec &Spec, const SpecItem &Item);
void setVectorLength(ParserState &PS, DeclSpec &Spec, std::optional<int64_t> Length,
                     SourceLoc Loc);
const Type *finishSpec(ParserState &PS, DeclSpec &Spec);
const Type *soaType(ParserState &PS, DeclSpec &Spec, const Type *T);
const Type *soaStorage(ParserState &PS, const Type *T, uint64_t N, SourceLoc Loc,
                       const std::string &Member);
const Type *applyDeclarator(ParserState &PS, const Type *Base, const Declarator &D,
                            const FunctionFlags &Flags);
FunctionFlags functionFlags(const DeclSpec &Spec);
std::vector<Decl *> finishDeclaration(ParserState &PS, DeclSpec &Spec,
                                      std::vector<InitDeclarator> &Decls);
std::vector<FieldDecl> finishFields(ParserState &PS, DeclSpec &Spec,
                                    std::vector<Declarator> &Decls);
FunctionDecl *makeFunction(ParserState &PS, DeclSpec &Spec, Declarator &D, const Type *Ty);
VarDecl *makeParam(ParserState &PS, DeclSpec &Spec, Declarator *D, Expr *Default, SourceLoc Loc);
const Type *makeTypeName(ParserState &PS, DeclSpec &Spec, Declarator *D);
/// The struct a definition fills in, and whether it is new (not the
/// completion of a forward declaration).
std::pair<StructDecl *, bool> structForDefinition(ParserState &PS, const std::string &Name,
                                                  SourceLoc Loc);
StructDecl *structForReference(ParserState &PS, const std::string &Name, SourceLoc Loc);
void takePendingTags(ParserState &PS, std::vector<Decl *> &Out);
bool addChunk(ParserState &PS, Declarator &D, DeclChunk C);
std::string sourceText(ParserState &PS, const SrcSpan &Span);
} // namespace
} // namespace spmdc

using namespace spmdc;

// The lexer sees the parser's stack depth: right-recursive input (`if (x)
// if (x) ...`, `- - - x`) grows the stack before any node can be checked.
#define yylex(Scanner) spmdcLex(Scanner, yystack_.size())

// Every node is checked against the nesting limit where it is made; beyond
// it the buffer is abandoned (the error is reported once).
#define EXPR_DEPTH(E)                                                                              \
  do {                                                                                             \
    if ((E)->Depth > ASTContext::MaxNestingDepth) {                                                \
      PS.nestingTooDeep((E)->Loc, "expression");                                                   \
      YYABORT;                                                                                     \
    }                                                                                              \
  } while (0)
#define STMT_DEPTH(S)                                                                              \
  do {                                                                                             \
    if ((S)->Depth > ASTContext::MaxNestingDepth) {                                                \
      PS.nestingTooDeep((S)->Loc, "statement");                                                    \
      YYABORT;                                                                                     \
    }                                                                                              \
  } while (0)
#define CHUNK(D, C)                                                                                \
  do {                                                                                             \
    if (!addChunk(PS, D, C))                                                                       \
      YYABORT;                                                                                     \
  } while (0)
}

%token YYEOF 0 "end of file"
%token <std::string> IDENT "identifier"
%token <std::string> TYPE_NAME "type name"
%token <spmdc::Expr *> INT_LITERAL "integer literal"
%token <spmdc::Expr *> FLOAT_LITERAL "floating literal"
%token <std::string> STRING_LITERAL "string literal"

%token KW_BOOL "'bool'" KW_INT "'int'" KW_INT8 "'int8'" KW_INT16 "'int16'" KW_INT32 "'int32'"
%token KW_INT64 "'int64'" KW_UINT8 "'uint8'" KW_UINT16 "'uint16'" KW_UINT32 "'uint32'"
%token KW_UINT64 "'uint64'" KW_UNSIGNED "'unsigned'" KW_SIGNED "'signed'" KW_FLOAT "'float'"
%token KW_FLOAT16 "'float16'" KW_DOUBLE "'double'" KW_VOID "'void'"
%token KW_UNIFORM "'uniform'" KW_VARYING "'varying'" KW_CONST "'const'" KW_STATIC "'static'"
%token KW_EXTERN "'extern'" KW_EXPORT "'export'" KW_TASK "'task'" KW_INLINE "'inline'"
%token KW_NOINLINE "'noinline'" KW_UNMASKED "'unmasked'" KW_SHARED "'shared'"
%token KW_STRUCT "'struct'" KW_ENUM "'enum'" KW_TYPEDEF "'typedef'"
%token KW_IF "'if'" KW_ELSE "'else'" KW_FOR "'for'" KW_WHILE "'while'" KW_DO "'do'"
%token KW_BREAK "'break'" KW_CONTINUE "'continue'" KW_RETURN "'return'" KW_SWITCH "'switch'"
%token KW_CASE "'case'" KW_DEFAULT "'default'" KW_CIF "'cif'" KW_CFOR "'cfor'"
%token KW_CWHILE "'cwhile'" KW_CDO "'cdo'" KW_FOREACH "'foreach'"
%token KW_FOREACH_TILED "'foreach_tiled'" KW_FOREACH_ACTIVE "'foreach_active'"
%token KW_FOREACH_UNIQUE "'foreach_unique'" KW_EVERYWHERE "'everywhere'"
%token KW_CREV "'crev'" KW_LAUNCH "'launch'" KW_SYNC "'sync'" KW_ASSERT "'assert'"
%token KW_PRINT "'print'" KW_SIZEOF "'sizeof'" KW_TRUE "'true'" KW_FALSE "'false'"
%token KW_NULL "'NULL'"
%token KW_NEW "'new'" KW_DELETE "'delete'" KW_GOTO "'goto'" KW_SOA "'soa'"
%token KW_OPERATOR "'operator'" KW_TEMPLATE "'template'" KW_TYPENAME "'typename'"
%token <std::string> TEMPLATE_NAME "template name"

%token ELLIPSIS "'...'" PTR_OP "'->'" INC_OP "'++'" DEC_OP "'--'" SHL_OP "'<<'" SHR_OP "'>>'"
%token LE_OP "'<='" GE_OP "'>='" EQ_OP "'=='" NE_OP "'!='" AND_OP "'&&'" OR_OP "'||'"
%token ADD_ASSIGN "'+='" SUB_ASSIGN "'-='" MUL_ASSIGN "'*='" DIV_ASSIGN "'/='"
%token MOD_ASSIGN "'%='" AND_ASSIGN "'&='" XOR_ASSIGN "'^='" OR_ASSIGN "'|='"
%token SHL_ASSIGN "'<<='" SHR_ASSIGN "'>>='"

%precedence LOWER_THAN_ELSE
%precedence KW_ELSE
/* `f < x` after a template name f always opens template arguments (C++'s rule). */
%precedence TEMPLATE_NAME_ALONE

/* C's binary operators, loosest first. */
%left OR_OP
%left AND_OP
%left '|'
%left '^'
%left '&'
%left EQ_OP NE_OP
%left '<' '>' LE_OP GE_OP
%left SHL_OP SHR_OP
%left '+' '-'
%left '*' '/' '%'

%type <spmdc::Expr *> primary_expression postfix_expression unary_expression cast_expression
%type <spmdc::Expr *> binary_expression conditional_expression assignment_expression
%type <spmdc::Expr *> expression expression_opt initializer default_argument_opt
%type <std::vector<spmdc::Expr *>> argument_list argument_list_opt initializer_list
%type <std::vector<spmdc::Expr *>> launch_counts print_arguments
%type <std::string> string_literals member_name tag_name overloadable_operator
%type <int> assignment_operator unary_operator
%type <spmdc::SpecItem> specifier struct_specifier enum_specifier
%type <spmdc::DeclSpec> declaration_specifiers
%type <std::optional<int64_t>> short_vector_length
%type <std::vector<spmdc::TemplateParam>> template_header template_param_list
%type <spmdc::TemplateParam> template_param
%type <std::vector<spmdc::TemplateArg>> template_arg_list
%type <spmdc::TemplateArg> template_arg
%type <spmdc::Declarator> declarator direct_declarator abstract_declarator
%type <spmdc::Declarator> direct_abstract_declarator pointer
%type <spmdc::DeclChunk> pointer_qualifiers
%type <std::vector<spmdc::VarDecl *>> parameter_clause parameter_list
%type <spmdc::VarDecl *> parameter_declaration
%type <spmdc::InitDeclarator> init_declarator
%type <std::vector<spmdc::InitDeclarator>> init_declarator_list
%type <std::vector<spmdc::Decl *>> declaration
%type <const spmdc::Type *> type_name
%type <spmdc::Stmt *> statement compound_statement block_item for_init
%type <spmdc::Stmt *> expression_statement
%type <std::vector<spmdc::Stmt *>> block_items
%type <size_t> open_scope
%type <std::vector<spmdc::ForeachDim>> foreach_dimensions
%type <spmdc::ForeachDim> foreach_dimension
%type <std::vector<spmdc::FieldDecl>> struct_fields struct_field
%type <std::vector<spmdc::Declarator>> struct_declarator_list
%type <std::vector<spmdc::EnumConstantDecl *>> enumerator_list
%type <spmdc::EnumConstantDecl *> enumerator
%type <spmdc::Expr *> new_expression
%type <spmdc::Variability> new_keyword

%start translation_unit

%%

/*===------------------------------------------------------------------===*
 * Translation unit
 *===------------------------------------------------------------------===*/

translation_unit
  : %empty
  | translation_unit external_declaration
  ;

external_declaration
  : function_definition
  | declaration
      {
        for (Decl *D : $1)
          PS.Ctx.TU.Decls.push_back(D);
      }
  | template_declaration
  | ';'
  | error ';' { PS.PendingTags.clear(); PS.endTemplateDeclaration(); PS.popScopesTo(1); }
  | error '}' { PS.PendingTags.clear(); PS.endTemplateDeclaration(); PS.popScopesTo(1); }
  ;

/*===------------------------------------------------------------------===*
 * Function templates (ISPC's "Function Templates")
 *===------------------------------------------------------------------===*/

template_declaration
  : template_header function_definition
      {
        // The pattern leaves the translation unit; sema instantiates it.
        if (!PS.Ctx.TU.Decls.empty() && llvm::isa<FunctionDecl>(PS.Ctx.TU.Decls.back())) {
          auto *Pattern = llvm::cast<FunctionDecl>(PS.Ctx.TU.Decls.back());
          PS.Ctx.TU.Decls.pop_back();
          FunctionTemplate T;
          T.Name = Pattern->Name;
          T.Params = std::move($1);
          T.Pattern = Pattern;
          T.Text = std::string(PS.Text.substr(@2.BeginOff, @2.EndOff - @2.BeginOff));
          T.TextLoc = @2.Begin;
          T.DoubleLiterals = PS.DoubleLiterals;
          PS.Ctx.FunctionTemplates[T.Name].push_back(std::move(T));
        }
        PS.endTemplateDeclaration();
        PS.popScopesTo(1);
      }
  | template_header declaration
      {
        // A template's prototype: its definition (required) does the work.
        PS.endTemplateDeclaration();
        PS.popScopesTo(1);
      }
  | KW_TEMPLATE '<' '>' function_definition
  | KW_TEMPLATE '<' '>' declaration
      {
        for (Decl *D : $4)
          PS.Ctx.TU.Decls.push_back(D);
      }
  | KW_TEMPLATE declaration
      {
        // An explicit instantiation: sema instantiates templates where used.
      }
  ;

template_header
  : KW_TEMPLATE '<' template_param_list '>'
      {
        $$ = std::move($3);
        // While the pattern is parsed, T is a placeholder struct type and N
        // a placeholder value: the pattern only serves argument deduction.
        std::vector<TemplateArg> Placeholders;
        for (const TemplateParam &P : $$) {
          TemplateArg A;
          A.Value = TemplateValuePlaceholder + static_cast<int64_t>(Placeholders.size());
          if (P.IsType) {
            auto *D = PS.Ctx.makeDecl<StructDecl>(@1.Begin, P.Name);
            D->IsTemplateParam = true;
            A.Ty = PS.Ctx.Types.getStruct(D);
          }
          Placeholders.push_back(A);
        }
        PS.bindTemplateParams($$, Placeholders);
        PS.DeclaringTemplate = true;
      }
  ;

template_param_list
  : template_param { $$.push_back(std::move($1)); }
  | template_param_list ',' template_param { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

template_param
  : KW_TYPENAME IDENT { $$.Name = std::move($2); }
  | KW_TYPENAME TYPE_NAME { $$.Name = std::move($2); }
  | KW_TYPENAME IDENT '=' template_arg
      {
        $$.Name = std::move($2);
        PS.error(@3.Begin, "a default template argument is not supported yet (ISPC 1.32 has none either)");
      }
  | declaration_specifiers IDENT '=' template_arg
      {
        $$.Name = std::move($2);
        $$.IsType = false;
        $$.ValueType = finishSpec(PS, $1);
        PS.error(@3.Begin, "a default template argument is not supported yet (ISPC 1.32 has none either)");
      }
  | declaration_specifiers IDENT
      {
        $$.Name = std::move($2);
        $$.IsType = false;
        $$.ValueType = finishSpec(PS, $1);
        if (!$$.ValueType->isInteger() && !$$.ValueType->isBool() && !$$.ValueType->isEnum())
          PS.error(@2.Begin, "template parameter '" + $$.Name + "' must have an integral, bool "
                             "or enum type, not '" + $$.ValueType->toString() + "'");
        else if ($$.ValueType->isVarying())
          PS.error(@2.Begin, "template parameter '" + $$.Name + "' cannot be varying");
      }
  ;

template_arg_list
  : template_arg { $$.push_back($1); }
  | template_arg_list ',' template_arg { $$ = std::move($1); $$.push_back($3); }
  ;

/* A type, or an integer constant: a literal, an enumerator or a template parameter. */
template_arg
  : type_name { $$.Ty = $1; }
  | INT_LITERAL { $$.Value = PS.foldConstant($1).value_or(0); }
  | '-' INT_LITERAL { $$.Value = -PS.foldConstant($2).value_or(0); }
  | KW_TRUE { $$.Value = 1; }
  | KW_FALSE { $$.Value = 0; }
  | IDENT
      {
        auto It = PS.TemplateValues.find($1);
        std::optional<int64_t> V =
            It != PS.TemplateValues.end() ? std::optional<int64_t>(It->second.first)
                                          : PS.lookupConstant($1);
        if (!V)
          PS.error(@1.Begin, "template argument '" + $1 + "' is not a constant");
        $$.Value = V.value_or(0);
      }
  ;

function_definition
  : declaration_specifiers declarator
      <spmdc::FunctionDecl *>{
        const Type *Ty = applyDeclarator(PS, finishSpec(PS, $1), $2, functionFlags($1));
        std::vector<Decl *> Tags;
        takePendingTags(PS, Tags);
        for (Decl *D : Tags)
          PS.Ctx.TU.Decls.push_back(D);
        if (!$2.isFunction()) {
          PS.error($2.Loc, "'" + $2.Name + "' is not a function; only functions have a body");
          $$ = nullptr;
        } else {
          $$ = makeFunction(PS, $1, $2, Ty);
          PS.Ctx.TU.Decls.push_back($$);
        }
        // The parameters hide outer constants and type names in the body.
        PS.pushScope();
        if ($$)
          for (VarDecl *P : $$->Params)
            if (!P->Name.empty())
              PS.declareConstant(P->Name, std::nullopt);
      }
    compound_statement
      {
        PS.popScopesTo(1);
        if ($3)
          $3->Body = llvm::cast<CompoundStmt>($4);
      }
  ;

/*===------------------------------------------------------------------===*
 * Declarations
 *===------------------------------------------------------------------===*/

declaration
  : declaration_specifiers ';'
      {
        std::vector<InitDeclarator> None;
        $$ = finishDeclaration(PS, $1, None);
      }
  | declaration_specifiers init_declarator_list ';'
      { $$ = finishDeclaration(PS, $1, $2); }
  ;

declaration_specifiers
  : specifier
      {
        $$ = DeclSpec();
        $$.Loc = $1.Loc;
        addSpec(PS, $$, $1);
      }
  | declaration_specifiers specifier
      {
        $$ = std::move($1);
        addSpec(PS, $$, $2);
      }
  | declaration_specifiers '<' short_vector_length '>'
      {
        $$ = std::move($1);
        setVectorLength(PS, $$, $3, @3.Begin);
      }
  ;

/* ISPC's short vectors: `float<3>`; the length is a literal or a named constant. */
short_vector_length
  : INT_LITERAL { $$ = PS.foldConstant($1); }
  | IDENT       { $$ = PS.lookupConstant($1); }
  ;

specifier
  : KW_UNIFORM   { $$ = SpecItem{SpecItem::Uniform, @1.Begin}; }
  | KW_VARYING   { $$ = SpecItem{SpecItem::Varying, @1.Begin}; }
  | KW_CONST     { $$ = SpecItem{SpecItem::Const, @1.Begin}; }
  | KW_STATIC    { $$ = SpecItem{SpecItem::Static, @1.Begin}; }
  | KW_EXTERN    { $$ = SpecItem{SpecItem::Extern, @1.Begin}; }
  | KW_EXTERN STRING_LITERAL
      {
        if ($2 != "C")
          PS.error(@2.Begin, "unknown language linkage \"" + $2 + "\" (only \"C\" is supported)");
        $$ = SpecItem{SpecItem::ExternC, @1.Begin};
      }
  | KW_EXPORT    { $$ = SpecItem{SpecItem::Export, @1.Begin}; }
  | KW_TASK      { $$ = SpecItem{SpecItem::Task, @1.Begin}; }
  | KW_INLINE    { $$ = SpecItem{SpecItem::Inline, @1.Begin}; }
  | KW_NOINLINE  { $$ = SpecItem{SpecItem::NoInline, @1.Begin}; }
  | KW_UNMASKED  { $$ = SpecItem{SpecItem::Unmasked, @1.Begin}; }
  | KW_SHARED    { $$ = SpecItem{SpecItem::Shared, @1.Begin}; }
  | KW_TYPEDEF   { $$ = SpecItem{SpecItem::Typedef, @1.Begin}; }
  | KW_SIGNED    { $$ = SpecItem{SpecItem::Signed, @1.Begin}; }
  | KW_UNSIGNED  { $$ = SpecItem{SpecItem::Unsigned, @1.Begin}; }
  | KW_SOA '<' INT_LITERAL '>'
      {
        $$ = SpecItem{SpecItem::Soa, @1.Begin};
        $$.SoaWidth = llvm::cast<IntegerLiteral>($3)->Value;
        uint64_t N = $$.SoaWidth;
        if (N == 0 || (N & (N - 1)) != 0 || N > 1024) {
          PS.error(@3.Begin, "soa<" + std::to_string(N) +
                                 "> width is illegal: it must be a positive power of two");
          $$.SoaWidth = 0;
        }
      }
  | KW_VOID      { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getVoid(), "void"}; }
  | KW_BOOL      { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Bool), "bool"}; }
  | KW_INT       { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Int32), "int", true}; }
  | KW_INT8      { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Int8), "int8", true}; }
  | KW_INT16     { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Int16), "int16", true}; }
  | KW_INT32     { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Int32), "int32", true}; }
  | KW_INT64     { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Int64), "int64", true}; }
  | KW_UINT8     { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::UInt8), "uint8"}; }
  | KW_UINT16    { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::UInt16), "uint16"}; }
  | KW_UINT32    { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::UInt32), "uint32"}; }
  | KW_UINT64    { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::UInt64), "uint64"}; }
  | KW_FLOAT     { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Float), "float"}; }
  | KW_FLOAT16   { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Float16), "float16"}; }
  | KW_DOUBLE    { $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getAtomic(Type::Double), "double"}; }
  | TYPE_NAME
      {
        const Type *T = PS.lookupTypeName($1);
        $$ = SpecItem{SpecItem::Base, @1.Begin, T ? T : PS.Ctx.Types.getAtomic(Type::Int32), $1};
      }
  | struct_specifier { $$ = std::move($1); }
  | enum_specifier   { $$ = std::move($1); }
  ;

tag_name
  : IDENT     { $$ = std::move($1); }
  | TYPE_NAME { $$ = std::move($1); }
  ;

struct_specifier
  : KW_STRUCT tag_name
      <std::pair<spmdc::StructDecl *, bool>>{ $$ = structForDefinition(PS, $2, @2.Begin); }
    '{' struct_fields struct_end
      {
        StructDecl *D = $3.first;
        D->Fields = std::move($5);
        D->IsComplete = true;
        // A completed forward declaration is already in the AST.
        if ($3.second)
          PS.PendingTags.push_back(D);
        $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getStruct(D), "struct " + D->Name};
      }
  | KW_STRUCT
      <spmdc::StructDecl *>{ $$ = PS.Ctx.makeDecl<StructDecl>(@1.Begin, std::string()); }
    '{' struct_fields struct_end
      {
        $2->Fields = std::move($4);
        $2->IsComplete = true;
        PS.PendingTags.push_back($2);
        $$ = SpecItem{SpecItem::Base, @1.Begin, PS.Ctx.Types.getStruct($2), "struct"};
      }
  | KW_STRUCT tag_name
      {
        StructDecl *D = structForReference(PS, $2, @2.Begin);
        $$ = SpecItem{SpecItem::Base, @1.Begin, D ? PS.Ctx.Types.getStruct(D)
                                                  : PS.Ctx.Types.getAtomic(Type::Int32),
                      "struct " + $2};
      }
  ;

/* An error before the closing brace recovers there, so the struct ends. */
struct_end
  : '}'
  | error '}'
  ;

struct_fields
  : %empty { $$ = {}; }
  | struct_fields struct_field
      {
        $$ = std::move($1);
        for (FieldDecl &F : $2)
          $$.push_back(F);
      }
  ;

struct_field
  : declaration_specifiers struct_declarator_list ';' { $$ = finishFields(PS, $1, $2); }
  | error ';' { $$ = {}; }
  ;

struct_declarator_list
  : declarator { $$ = {}; $$.push_back(std::move($1)); }
  | struct_declarator_list ',' declarator
      {
        $$ = std::move($1);
        $$.push_back(std::move($3));
      }
  ;

enum_specifier
  : KW_ENUM tag_name '{' { PS.NextEnumValue = 0; } enumerator_list comma_opt '}'
      {
        auto *D = PS.Ctx.makeDecl<EnumDecl>(@2.Begin, $2);
        D->Constants = std::move($5);
        const Type *T = PS.Ctx.Types.getEnum(D);
        for (EnumConstantDecl *C : D->Constants)
          C->Ty = T;
        if (PS.lookupTypeNameInCurrentScope($2))
          PS.error(@2.Begin, "redefinition of '" + $2 + "'");
        else
          PS.declareTypeName($2, T);
        PS.PendingTags.push_back(D);
        $$ = SpecItem{SpecItem::Base, @1.Begin, T, "enum " + $2};
      }
  | KW_ENUM '{' { PS.NextEnumValue = 0; } enumerator_list comma_opt '}'
      {
        auto *D = PS.Ctx.makeDecl<EnumDecl>(@1.Begin, std::string());
        D->Constants = std::move($4);
        const Type *T = PS.Ctx.Types.getEnum(D);
        for (EnumConstantDecl *C : D->Constants)
          C->Ty = T;
        PS.PendingTags.push_back(D);
        $$ = SpecItem{SpecItem::Base, @1.Begin, T, "enum"};
      }
  | KW_ENUM tag_name
      {
        const Type *T = PS.lookupTypeName($2);
        if (!T || !T->isEnum()) {
          PS.error(@2.Begin, "unknown enum '" + $2 + "'");
          T = PS.Ctx.Types.getAtomic(Type::Int32);
        }
        $$ = SpecItem{SpecItem::Base, @1.Begin, T, "enum " + $2};
      }
  ;

comma_opt
  : %empty
  | ','
  ;

enumerator_list
  : enumerator { $$ = {$1}; }
  | enumerator_list ',' enumerator
      {
        $$ = std::move($1);
        $$.push_back($3);
      }
  ;

enumerator
  : IDENT
      {
        $$ = PS.Ctx.makeDecl<EnumConstantDecl>(@1.Begin, $1, nullptr);
        $$->Resolved = PS.NextEnumValue;
        PS.declareConstant($1, $$->Resolved);
        PS.NextEnumValue = $$->Resolved + 1;
      }
  | IDENT '=' conditional_expression
      {
        $$ = PS.Ctx.makeDecl<EnumConstantDecl>(@1.Begin, $1, $3);
        std::optional<int64_t> V = PS.foldConstant($3);
        $$->Resolved = V ? *V : PS.NextEnumValue;
        PS.declareConstant($1, V);
        PS.NextEnumValue = $$->Resolved + 1;
      }
  ;

init_declarator_list
  : init_declarator { $$ = {}; $$.push_back(std::move($1)); }
  | init_declarator_list ',' init_declarator
      {
        $$ = std::move($1);
        $$.push_back(std::move($3));
      }
  ;

init_declarator
  : declarator { $$ = InitDeclarator{std::move($1), nullptr}; }
  | declarator '=' initializer { $$ = InitDeclarator{std::move($1), $3}; }
  ;

initializer
  : assignment_expression { $$ = $1; }
  | '{' initializer_list comma_opt '}'
      {
        $$ = PS.Ctx.makeExpr<InitListExpr>(@1.Begin, std::move($2));
        EXPR_DEPTH($$);
      }
  | '{' '}' { $$ = PS.Ctx.makeExpr<InitListExpr>(@1.Begin, std::vector<Expr *>()); }
  ;

initializer_list
  : initializer { $$ = {$1}; }
  | initializer_list ',' initializer
      {
        $$ = std::move($1);
        $$.push_back($3);
      }
  ;

/* Declarators keep their chunks in application order: base type first. */
declarator
  : pointer direct_declarator
      {
        $$ = std::move($2);
        std::vector<DeclChunk> Chunks = std::move($1.Chunks);
        for (DeclChunk &C : $$.Chunks)
          Chunks.push_back(std::move(C));
        $$.Chunks = std::move(Chunks);
      }
  | direct_declarator { $$ = std::move($1); }
  ;

direct_declarator
  : IDENT
      {
        $$ = Declarator();
        $$.Loc = @1.Begin;
        $$.Name = std::move($1);
      }
  | TEMPLATE_NAME
      {
        $$ = Declarator();
        $$.Loc = @1.Begin;
        $$.Name = std::move($1);
      }
  | TEMPLATE_NAME '<' template_arg_list '>'
      {
        // `template <> int goo<int>(int a)`: an explicit specialization.
        $$ = Declarator();
        $$.Loc = @1.Begin;
        $$.Name = std::move($1);
        $$.HasTemplateArgs = true;
        $$.TemplateArgs = std::move($3);
      }
  | KW_OPERATOR overloadable_operator
      {
        // ISPC's operator overloading: an ordinary function named `operator+`.
        $$ = Declarator();
        $$.Loc = @1.Begin;
        $$.Name = "operator" + $2;
      }
  | '(' declarator ')' { $$ = std::move($2); }
  | direct_declarator '[' ']'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @2.Begin;
        CHUNK($$, C);
      }
  | direct_declarator '[' conditional_expression ']'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @2.Begin;
        C.Size = $3;
        C.SizeLoc = @3.Begin;
        CHUNK($$, C);
      }
  | direct_declarator '(' parameter_clause ')'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Function;
        C.Loc = @2.Begin;
        C.Params = std::move($3);
        CHUNK($$, C);
      }
  ;

/* The operators ISPC lets a struct overload (the guide's "Operators Overloading"). */
overloadable_operator
  : '*' { $$ = "*"; } | '/' { $$ = "/"; } | '%' { $$ = "%"; } | '+' { $$ = "+"; }
  | '-' { $$ = "-"; } | SHR_OP { $$ = ">>"; } | SHL_OP { $$ = "<<"; } | EQ_OP { $$ = "=="; }
  | NE_OP { $$ = "!="; } | '<' { $$ = "<"; } | '>' { $$ = ">"; } | LE_OP { $$ = "<="; }
  | GE_OP { $$ = ">="; } | '&' { $$ = "&"; } | '|' { $$ = "|"; } | '^' { $$ = "^"; }
  | AND_OP { $$ = "&&"; } | OR_OP { $$ = "||"; } | INC_OP { $$ = "++"; } | DEC_OP { $$ = "--"; }
  | '!' { $$ = "!"; } | '~' { $$ = "~"; } | '=' { $$ = "="; } | ADD_ASSIGN { $$ = "+="; }
  | SUB_ASSIGN { $$ = "-="; } | MUL_ASSIGN { $$ = "*="; } | DIV_ASSIGN { $$ = "/="; }
  | MOD_ASSIGN { $$ = "%="; } | SHL_ASSIGN { $$ = "<<="; } | SHR_ASSIGN { $$ = ">>="; }
  | AND_ASSIGN { $$ = "&="; } | OR_ASSIGN { $$ = "|="; } | XOR_ASSIGN { $$ = "^="; }
  ;

pointer
  : '*' pointer_qualifiers
      {
        $$ = Declarator();
        $2.Kind = DeclChunk::Pointer;
        $2.Loc = @1.Begin;
        $$.Chunks.push_back($2);
      }
  | '&'
      {
        $$ = Declarator();
        DeclChunk C;
        C.Kind = DeclChunk::Reference;
        C.Loc = @1.Begin;
        $$.Chunks.push_back(C);
      }
  | pointer '*' pointer_qualifiers
      {
        $$ = std::move($1);
        $3.Kind = DeclChunk::Pointer;
        $3.Loc = @2.Begin;
        if ($$.Chunks.size() >= ASTContext::MaxNestingDepth) {
          PS.nestingTooDeep(@2.Begin, "declarator");
          YYABORT;
        }
        $$.Chunks.push_back($3);
      }
  | pointer '&'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Reference;
        C.Loc = @2.Begin;
        if ($$.Chunks.size() >= ASTContext::MaxNestingDepth) {
          PS.nestingTooDeep(@2.Begin, "declarator");
          YYABORT;
        }
        $$.Chunks.push_back(C);
      }
  ;

pointer_qualifiers
  : %empty { $$ = DeclChunk(); }
  | pointer_qualifiers KW_UNIFORM
      {
        $$ = std::move($1);
        if ($$.Var == Variability::Varying)
          PS.error(@2.Begin, "cannot combine 'uniform' and 'varying'");
        $$.Var = Variability::Uniform;
      }
  | pointer_qualifiers KW_VARYING
      {
        $$ = std::move($1);
        if ($$.Var == Variability::Uniform)
          PS.error(@2.Begin, "cannot combine 'uniform' and 'varying'");
        $$.Var = Variability::Varying;
      }
  | pointer_qualifiers KW_CONST
      {
        $$ = std::move($1);
        $$.Const = true;
      }
  ;

parameter_clause
  : %empty { $$ = {}; }
  | parameter_list
      {
        $$ = std::move($1);
        // `f(void)` declares no parameters.
        if ($$.size() == 1 && $$[0]->Name.empty() && $$[0]->Ty && $$[0]->Ty->isVoid() &&
            !$$[0]->Init)
          $$.clear();
      }
  ;

parameter_list
  : parameter_declaration { $$ = {$1}; }
  | parameter_list ',' parameter_declaration
      {
        $$ = std::move($1);
        $$.push_back($3);
      }
  ;

parameter_declaration
  : declaration_specifiers declarator default_argument_opt
      { $$ = makeParam(PS, $1, &$2, $3, $2.Loc); }
  | declaration_specifiers abstract_declarator default_argument_opt
      { $$ = makeParam(PS, $1, &$2, $3, @1.Begin); }
  | declaration_specifiers default_argument_opt
      { $$ = makeParam(PS, $1, nullptr, $2, @1.Begin); }
  ;

default_argument_opt
  : %empty { $$ = nullptr; }
  | '=' assignment_expression { $$ = $2; }
  ;

type_name
  : declaration_specifiers { $$ = makeTypeName(PS, $1, nullptr); }
  | declaration_specifiers abstract_declarator { $$ = makeTypeName(PS, $1, &$2); }
  ;

abstract_declarator
  : pointer { $$ = std::move($1); }
  | direct_abstract_declarator { $$ = std::move($1); }
  | pointer direct_abstract_declarator
      {
        $$ = std::move($2);
        std::vector<DeclChunk> Chunks = std::move($1.Chunks);
        for (DeclChunk &C : $$.Chunks)
          Chunks.push_back(std::move(C));
        $$.Chunks = std::move(Chunks);
      }
  ;

direct_abstract_declarator
  : '(' abstract_declarator ')' { $$ = std::move($2); }
  | '[' ']'
      {
        $$ = Declarator();
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @1.Begin;
        CHUNK($$, C);
      }
  | '[' conditional_expression ']'
      {
        $$ = Declarator();
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @1.Begin;
        C.Size = $2;
        C.SizeLoc = @2.Begin;
        CHUNK($$, C);
      }
  | direct_abstract_declarator '[' ']'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @2.Begin;
        CHUNK($$, C);
      }
  | direct_abstract_declarator '[' conditional_expression ']'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Array;
        C.Loc = @2.Begin;
        C.Size = $3;
        C.SizeLoc = @3.Begin;
        CHUNK($$, C);
      }
  | '(' parameter_clause ')'
      {
        $$ = Declarator();
        DeclChunk C;
        C.Kind = DeclChunk::Function;
        C.Loc = @1.Begin;
        C.Params = std::move($2);
        CHUNK($$, C);
      }
  | direct_abstract_declarator '(' parameter_clause ')'
      {
        $$ = std::move($1);
        DeclChunk C;
        C.Kind = DeclChunk::Function;
        C.Loc = @2.Begin;
        C.Params = std::move($3);
        CHUNK($$, C);
      }
  ;

/*===------------------------------------------------------------------===*
 * Statements
 *===------------------------------------------------------------------===*/

statement
  : compound_statement { $$ = $1; }
  | expression_statement { $$ = $1; }
  | KW_IF '(' expression ')' statement %prec LOWER_THAN_ELSE
      { $$ = PS.Ctx.makeStmt<IfStmt>(@1.Begin, $3, $5, nullptr, false); STMT_DEPTH($$); }
  | KW_IF '(' expression ')' statement KW_ELSE statement
      { $$ = PS.Ctx.makeStmt<IfStmt>(@1.Begin, $3, $5, $7, false); STMT_DEPTH($$); }
  | KW_CIF '(' expression ')' statement %prec LOWER_THAN_ELSE
      { $$ = PS.Ctx.makeStmt<IfStmt>(@1.Begin, $3, $5, nullptr, true); STMT_DEPTH($$); }
  | KW_CIF '(' expression ')' statement KW_ELSE statement
      { $$ = PS.Ctx.makeStmt<IfStmt>(@1.Begin, $3, $5, $7, true); STMT_DEPTH($$); }
  | KW_SWITCH '(' expression ')' statement
      { $$ = PS.Ctx.makeStmt<SwitchStmt>(@1.Begin, $3, $5); STMT_DEPTH($$); }
  | KW_CASE conditional_expression ':' statement
      { $$ = PS.Ctx.makeStmt<CaseStmt>(@1.Begin, $2, $4); STMT_DEPTH($$); }
  | KW_DEFAULT ':' statement
      { $$ = PS.Ctx.makeStmt<DefaultStmt>(@1.Begin, $3); STMT_DEPTH($$); }
  | KW_WHILE '(' expression ')' statement
      { $$ = PS.Ctx.makeStmt<WhileStmt>(@1.Begin, $3, $5, false); STMT_DEPTH($$); }
  | KW_CWHILE '(' expression ')' statement
      { $$ = PS.Ctx.makeStmt<WhileStmt>(@1.Begin, $3, $5, true); STMT_DEPTH($$); }
  | KW_DO statement KW_WHILE '(' expression ')' ';'
      { $$ = PS.Ctx.makeStmt<DoStmt>(@1.Begin, $2, $5, false); STMT_DEPTH($$); }
  | KW_CDO statement KW_WHILE '(' expression ')' ';'
      { $$ = PS.Ctx.makeStmt<DoStmt>(@1.Begin, $2, $5, true); STMT_DEPTH($$); }
  | KW_FOR '(' for_init expression_opt ';' expression_opt ')' statement
      { $$ = PS.Ctx.makeStmt<ForStmt>(@1.Begin, $3, $4, $6, $8, false); STMT_DEPTH($$); }
  | KW_CFOR '(' for_init expression_opt ';' expression_opt ')' statement
      { $$ = PS.Ctx.makeStmt<ForStmt>(@1.Begin, $3, $4, $6, $8, true); STMT_DEPTH($$); }
  | KW_BREAK ';' { $$ = PS.Ctx.makeStmt<BreakStmt>(@1.Begin); }
  | KW_CONTINUE ';' { $$ = PS.Ctx.makeStmt<ContinueStmt>(@1.Begin); }
  | KW_RETURN ';' { $$ = PS.Ctx.makeStmt<ReturnStmt>(@1.Begin, nullptr); }
  | KW_RETURN expression ';'
      { $$ = PS.Ctx.makeStmt<ReturnStmt>(@1.Begin, $2); STMT_DEPTH($$); }
  | KW_FOREACH '(' foreach_dimensions ')' statement
      { $$ = PS.Ctx.makeStmt<ForeachStmt>(@1.Begin, std::move($3), $5, false); STMT_DEPTH($$); }
  | KW_FOREACH_TILED '(' foreach_dimensions ')' statement
      { $$ = PS.Ctx.makeStmt<ForeachStmt>(@1.Begin, std::move($3), $5, true); STMT_DEPTH($$); }
  | KW_FOREACH_ACTIVE '(' IDENT ')' statement
      {
        auto *V = PS.Ctx.makeDecl<VarDecl>(@3.Begin, $3, PS.Ctx.Types.getAtomic(Type::Int32));
        $$ = PS.Ctx.makeStmt<ForeachActiveStmt>(@1.Begin, V, $5);
        STMT_DEPTH($$);
      }
  | KW_FOREACH_UNIQUE '(' IDENT IDENT expression ')' statement
      {
        // `in` is a keyword only here (as in ISPC): elsewhere it is a name.
        if ($4 != "in")
          PS.Diags.error(@4.Begin, "expected 'in' after the variable of 'foreach_unique', not '" +
                                       $4 + "'");
        // The variable's type is the sequence's element type, which sema knows.
        auto *V = PS.Ctx.makeDecl<VarDecl>(@3.Begin, $3, nullptr);
        $$ = PS.Ctx.makeStmt<ForeachUniqueStmt>(@1.Begin, V, $5, $7);
        STMT_DEPTH($$);
      }
  | KW_UNMASKED compound_statement
      { $$ = PS.Ctx.makeStmt<UnmaskedStmt>(@1.Begin, $2); STMT_DEPTH($$); }
  | KW_EVERYWHERE compound_statement
      { $$ = PS.Ctx.makeStmt<EverywhereStmt>(@1.Begin, $2); STMT_DEPTH($$); }
  | KW_SYNC ';' { $$ = PS.Ctx.makeStmt<SyncStmt>(@1.Begin); }
  | KW_DELETE expression ';'
      { $$ = PS.Ctx.makeStmt<DeleteStmt>(@1.Begin, $2, false); STMT_DEPTH($$); }
  | KW_DELETE '[' ']' expression ';'
      { $$ = PS.Ctx.makeStmt<DeleteStmt>(@1.Begin, $4, true); STMT_DEPTH($$); }
  | IDENT ':' statement
      { $$ = PS.Ctx.makeStmt<LabelStmt>(@1.Begin, std::move($1), $3); STMT_DEPTH($$); }
  | KW_GOTO IDENT ';' { $$ = PS.Ctx.makeStmt<GotoStmt>(@1.Begin, std::move($2), @2.Begin); }
  | KW_ASSERT '(' expression ')' ';'
      {
        $$ = PS.Ctx.makeStmt<AssertStmt>(@1.Begin, $3, sourceText(PS, @3));
        STMT_DEPTH($$);
      }
  | KW_PRINT '(' string_literals print_arguments ')' ';'
      {
        $$ = PS.Ctx.makeStmt<PrintStmt>(@1.Begin, std::move($3), std::move($4));
        STMT_DEPTH($$);
      }
  ;

print_arguments
  : %empty { $$ = {}; }
  | ',' argument_list { $$ = std::move($2); }
  ;

foreach_dimensions
  : foreach_dimension { $$ = {$1}; }
  | foreach_dimensions ',' foreach_dimension
      {
        $$ = std::move($1);
        $$.push_back($3);
      }
  ;

foreach_dimension
  : IDENT '=' assignment_expression ELLIPSIS assignment_expression
      {
        auto *V = PS.Ctx.makeDecl<VarDecl>(@1.Begin, $1, PS.Ctx.Types.getAtomic(Type::Int32));
        $$ = ForeachDim{V, $3, $5};
      }
  ;

for_init
  : expression_statement { $$ = llvm::isa<EmptyStmt>($1) ? nullptr : $1; }
  | declaration { $$ = PS.Ctx.makeStmt<DeclStmt>(@1.Begin, std::move($1)); STMT_DEPTH($$); }
  ;

expression_opt
  : %empty { $$ = nullptr; }
  | expression { $$ = $1; }
  ;

expression_statement
  : ';' { $$ = PS.Ctx.makeStmt<EmptyStmt>(@1.Begin); }
  | expression ';' { $$ = PS.Ctx.makeStmt<ExprStmt>(@1.Begin, $1); STMT_DEPTH($$); }
  ;

compound_statement
  : '{' open_scope block_items '}'
      {
        PS.popScopesTo($2);
        $$ = PS.Ctx.makeStmt<CompoundStmt>(@1.Begin, std::move($3));
        STMT_DEPTH($$);
      }
  | '{' open_scope block_items error '}'
      {
        PS.popScopesTo($2);
        $$ = PS.Ctx.makeStmt<CompoundStmt>(@1.Begin, std::move($3));
        STMT_DEPTH($$);
      }
  ;

/* Opens the block's scope of type names; the value is the depth to return to. */
open_scope
  : %empty
      {
        $$ = PS.scopeDepth();
        PS.pushScope();
      }
  ;

block_items
  : %empty { $$ = {}; }
  | block_items block_item
      {
        $$ = std::move($1);
        if ($2)
          $$.push_back($2);
      }
  ;

block_item
  : statement { $$ = $1; }
  | declaration { $$ = PS.Ctx.makeStmt<DeclStmt>(@1.Begin, std::move($1)); STMT_DEPTH($$); }
  | error ';' { PS.PendingTags.clear(); $$ = nullptr; }
  ;

/*===------------------------------------------------------------------===*
 * Expressions
 *===------------------------------------------------------------------===*/

string_literals
  : STRING_LITERAL { $$ = std::move($1); }
  | string_literals STRING_LITERAL
      {
        $$ = std::move($1);
        $$ += $2;
      }
  ;

primary_expression
  : IDENT
      {
        // A non-type template parameter is its value.
        if (auto It = PS.TemplateValues.find($1); It != PS.TemplateValues.end())
          $$ = PS.Ctx.makeExpr<IntegerLiteral>(@1.Begin, static_cast<uint64_t>(It->second.first),
                                               It->second.second);
        else
          $$ = PS.Ctx.makeExpr<DeclRefExpr>(@1.Begin, std::move($1));
      }
  | TEMPLATE_NAME %prec TEMPLATE_NAME_ALONE
      { $$ = PS.Ctx.makeExpr<DeclRefExpr>(@1.Begin, std::move($1)); }
  | TEMPLATE_NAME '<' template_arg_list '>'
      {
        auto *R = PS.Ctx.makeExpr<DeclRefExpr>(@1.Begin, std::move($1));
        R->HasTemplateArgs = true;
        R->TemplateArgs = std::move($3);
        $$ = R;
      }
  | INT_LITERAL { $$ = $1; }
  | FLOAT_LITERAL { $$ = $1; }
  | string_literals { $$ = PS.Ctx.makeExpr<StringLiteral>(@1.Begin, std::move($1)); }
  | KW_TRUE { $$ = PS.Ctx.makeExpr<BoolLiteral>(@1.Begin, true); }
  | KW_FALSE { $$ = PS.Ctx.makeExpr<BoolLiteral>(@1.Begin, false); }
  | KW_NULL { $$ = PS.Ctx.makeExpr<NullLiteral>(@1.Begin); }
  | '(' expression ')' { $$ = $2; }
  ;

member_name
  : IDENT { $$ = std::move($1); }
  | TYPE_NAME { $$ = std::move($1); }
  ;

postfix_expression
  : primary_expression { $$ = $1; }
  | postfix_expression '[' expression ']'
      { $$ = PS.Ctx.makeExpr<IndexExpr>(@2.Begin, $1, $3); EXPR_DEPTH($$); }
  | postfix_expression '(' argument_list_opt ')'
      { $$ = PS.Ctx.makeExpr<CallExpr>($1->Loc, $1, std::move($3)); EXPR_DEPTH($$); }
  | postfix_expression '.' member_name
      { $$ = PS.Ctx.makeExpr<MemberExpr>(@2.Begin, $1, std::move($3), false); EXPR_DEPTH($$); }
  | postfix_expression PTR_OP member_name
      { $$ = PS.Ctx.makeExpr<MemberExpr>(@2.Begin, $1, std::move($3), true); EXPR_DEPTH($$); }
  | postfix_expression INC_OP
      { $$ = PS.Ctx.makeExpr<UnaryExpr>(@2.Begin, UnaryOp::PostInc, $1); EXPR_DEPTH($$); }
  | postfix_expression DEC_OP
      { $$ = PS.Ctx.makeExpr<UnaryExpr>(@2.Begin, UnaryOp::PostDec, $1); EXPR_DEPTH($$); }
  ;

argument_list_opt
  : %empty { $$ = {}; }
  | argument_list { $$ = std::move($1); }
  ;

argument_list
  : assignment_expression { $$ = {$1}; }
  | argument_list ',' assignment_expression
      {
        $$ = std::move($1);
        $$.push_back($3);
      }
  ;

unary_expression
  : postfix_expression { $$ = $1; }
  | INC_OP unary_expression
      { $$ = PS.Ctx.makeExpr<UnaryExpr>(@1.Begin, UnaryOp::PreInc, $2); EXPR_DEPTH($$); }
  | DEC_OP unary_expression
      { $$ = PS.Ctx.makeExpr<UnaryExpr>(@1.Begin, UnaryOp::PreDec, $2); EXPR_DEPTH($$); }
  | unary_operator cast_expression
      {
        $$ = PS.Ctx.makeExpr<UnaryExpr>(@1.Begin, static_cast<UnaryOp>($1), $2);
        EXPR_DEPTH($$);
      }
  | KW_SIZEOF unary_expression
      { $$ = PS.Ctx.makeExpr<SizeofExpr>(@1.Begin, nullptr, $2); EXPR_DEPTH($$); }
  | KW_SIZEOF '(' type_name ')'
      { $$ = PS.Ctx.makeExpr<SizeofExpr>(@1.Begin, $3, nullptr); }
  | KW_CREV postfix_expression
      {
        auto *Call = llvm::dyn_cast<CallExpr>($2);
        if (!Call || Call->Kind != CallKind::Plain) {
          PS.error(@2.Begin, "'crev' must be followed by a function call");
          $$ = $2;
        } else {
          Call->Kind = CallKind::Crev;
          $$ = Call;
        }
      }
  | KW_LAUNCH launch_counts postfix_expression
      {
        auto *Call = llvm::dyn_cast<CallExpr>($3);
        if (!Call || Call->Kind != CallKind::Plain) {
          PS.error(@3.Begin, "'launch' must be followed by a function call");
          $$ = $3;
        } else {
          if ($2.size() > 3)
            PS.error($2[3]->Loc, "'launch' takes at most 3 task counts");
          Call->Kind = CallKind::Launch;
          Call->LaunchCounts = std::move($2);
          // The counts are children now: the height must include them.
          for (Expr *N : Call->LaunchCounts)
            Call->Depth = std::max(Call->Depth, N->Depth + 1);
          $$ = Call;
          EXPR_DEPTH($$);
        }
      }
  ;

launch_counts
  : %empty { $$ = {}; }
  | launch_counts '[' argument_list ']'
      {
        $$ = std::move($1);
        for (Expr *E : $3)
          $$.push_back(E);
      }
  ;

unary_operator
  : '&' { $$ = static_cast<int>(UnaryOp::AddrOf); }
  | '*' { $$ = static_cast<int>(UnaryOp::Deref); }
  | '+' { $$ = static_cast<int>(UnaryOp::Plus); }
  | '-' { $$ = static_cast<int>(UnaryOp::Minus); }
  | '~' { $$ = static_cast<int>(UnaryOp::BitNot); }
  | '!' { $$ = static_cast<int>(UnaryOp::Not); }
  ;

cast_expression
  : unary_expression { $$ = $1; }
  | '(' type_name ')' cast_expression
      { $$ = PS.Ctx.makeExpr<CastExpr>(@1.Begin, $2, $4); EXPR_DEPTH($$); }
  ;

/* Binary operators by precedence (declared at the top): one nonterminal
   instead of a chain of ten keeps the parser from reducing through every
   level for each operand. */
binary_expression
  : cast_expression { $$ = $1; }
  | binary_expression '*' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Mul, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '/' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Div, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '%' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Rem, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '+' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Add, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '-' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Sub, $1, $3); EXPR_DEPTH($$); }
  | binary_expression SHL_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Shl, $1, $3); EXPR_DEPTH($$); }
  | binary_expression SHR_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Shr, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '<' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::LT, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '>' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::GT, $1, $3); EXPR_DEPTH($$); }
  | binary_expression LE_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::LE, $1, $3); EXPR_DEPTH($$); }
  | binary_expression GE_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::GE, $1, $3); EXPR_DEPTH($$); }
  | binary_expression EQ_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::EQ, $1, $3); EXPR_DEPTH($$); }
  | binary_expression NE_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::NE, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '&' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::BitAnd, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '^' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::BitXor, $1, $3); EXPR_DEPTH($$); }
  | binary_expression '|' binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::BitOr, $1, $3); EXPR_DEPTH($$); }
  | binary_expression AND_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::LogicalAnd, $1, $3); EXPR_DEPTH($$); }
  | binary_expression OR_OP binary_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::LogicalOr, $1, $3); EXPR_DEPTH($$); }
  ;

conditional_expression
  : binary_expression { $$ = $1; }
  | binary_expression '?' expression ':' conditional_expression
      { $$ = PS.Ctx.makeExpr<ConditionalExpr>(@2.Begin, $1, $3, $5); EXPR_DEPTH($$); }
  ;

assignment_expression
  : conditional_expression { $$ = $1; }
  | new_expression { $$ = $1; }
  | unary_expression assignment_operator assignment_expression
      {
        std::optional<BinaryOp> Op;
        if ($2 >= 0)
          Op = static_cast<BinaryOp>($2);
        $$ = PS.Ctx.makeExpr<AssignExpr>(@2.Begin, Op, $1, $3);
        EXPR_DEPTH($$);
      }
  ;

/* `new` binds loosest, as in ISPC: `new T[n]` is a whole operand. */
new_expression
  : new_keyword declaration_specifiers
      {
        $$ = PS.Ctx.makeExpr<NewExpr>(@1.Begin, $1, makeTypeName(PS, $2, nullptr), nullptr,
                                      nullptr);
      }
  | new_keyword declaration_specifiers '[' expression ']'
      {
        $$ = PS.Ctx.makeExpr<NewExpr>(@1.Begin, $1, makeTypeName(PS, $2, nullptr), $4, nullptr);
        EXPR_DEPTH($$);
      }
  | new_keyword declaration_specifiers '(' argument_list ')'
      {
        // `new T(a, b)` initializes like `T x = { a, b };`, one value like `T x = a;`.
        Expr *Init = $4.size() == 1 ? $4[0]
                                    : PS.Ctx.makeExpr<InitListExpr>(@3.Begin, std::move($4));
        $$ = PS.Ctx.makeExpr<NewExpr>(@1.Begin, $1, makeTypeName(PS, $2, nullptr), nullptr, Init);
        EXPR_DEPTH($$);
      }
  ;

new_keyword
  : KW_NEW { $$ = Variability::Unbound; }
  | KW_UNIFORM KW_NEW { $$ = Variability::Uniform; }
  | KW_VARYING KW_NEW { $$ = Variability::Varying; }
  ;

assignment_operator
  : '=' { $$ = -1; }
  | MUL_ASSIGN { $$ = static_cast<int>(BinaryOp::Mul); }
  | DIV_ASSIGN { $$ = static_cast<int>(BinaryOp::Div); }
  | MOD_ASSIGN { $$ = static_cast<int>(BinaryOp::Rem); }
  | ADD_ASSIGN { $$ = static_cast<int>(BinaryOp::Add); }
  | SUB_ASSIGN { $$ = static_cast<int>(BinaryOp::Sub); }
  | SHL_ASSIGN { $$ = static_cast<int>(BinaryOp::Shl); }
  | SHR_ASSIGN { $$ = static_cast<int>(BinaryOp::Shr); }
  | AND_ASSIGN { $$ = static_cast<int>(BinaryOp::BitAnd); }
  | XOR_ASSIGN { $$ = static_cast<int>(BinaryOp::BitXor); }
  | OR_ASSIGN { $$ = static_cast<int>(BinaryOp::BitOr); }
  ;

expression
  : assignment_expression { $$ = $1; }
  | expression ',' assignment_expression
      { $$ = PS.Ctx.makeExpr<BinaryExpr>(@2.Begin, BinaryOp::Comma, $1, $3); EXPR_DEPTH($$); }
  ;

%%

namespace spmdc {

//===----------------------------------------------------------------------===//
// Syntax errors
//===----------------------------------------------------------------------===//

namespace yy {

/// Bison's names are `"'int'"`, `"identifier"`, `';'`: drop the outer quotes.
static std::string tokenName(Parser::symbol_kind_type K) {
  std::string N = Parser::symbol_name(K);
  if (N.size() >= 2 && N.front() == '"' && N.back() == '"')
    N = N.substr(1, N.size() - 2);
  return N;
}

/// Token text for a message: control bytes escaped, long texts cut.
static std::string shortened(const std::string &S) {
  std::string Out;
  for (unsigned char C : S) {
    if (Out.size() >= 40) {
      Out += "...";
      break;
    }
    if (C < 0x20 || C >= 0x7f) {
      static const char Hex[] = "0123456789ABCDEF";
      Out += "\\x";
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    } else {
      Out += static_cast<char>(C);
    }
  }
  return Out;
}

void Parser::report_syntax_error(const context &Ctx) const {
  if (PS.Aborted || PS.Diags.shouldStop())
    return;
  symbol_kind_type Tok = Ctx.token();
  std::string Msg = "syntax error";
  if (Tok != symbol_kind::S_YYEMPTY) {
    Msg += ": unexpected ";
    switch (Tok) {
    case symbol_kind::S_IDENT:
      Msg += "identifier '" + shortened(PS.LastTokenText) + "'";
      break;
    case symbol_kind::S_TYPE_NAME:
      Msg += "type name '" + shortened(PS.LastTokenText) + "'";
      break;
    case symbol_kind::S_INT_LITERAL:
      Msg += "integer literal '" + shortened(PS.LastTokenText) + "'";
      break;
    case symbol_kind::S_FLOAT_LITERAL:
      Msg += "floating literal '" + shortened(PS.LastTokenText) + "'";
      break;
    case symbol_kind::S_STRING_LITERAL:
      Msg += "string literal " + shortened(PS.LastTokenText);
      break;
    default:
      Msg += tokenName(Tok);
      break;
    }
    // Up to six alternatives are worth listing; more would be noise.
    enum { MaxExpected = 7 };
    symbol_kind_type Expected[MaxExpected];
    int N = Ctx.expected_tokens(Expected, MaxExpected);
    if (N > 0 && N < MaxExpected) {
      Msg += ", expecting ";
      for (int I = 0; I < N; ++I) {
        if (I)
          Msg += I + 1 == N ? " or " : ", ";
        Msg += tokenName(Expected[I]);
      }
    }
  }
  PS.error(Ctx.location().Begin, Msg);
}

void Parser::error(const location_type &Loc, const std::string &Msg) { PS.error(Loc.Begin, Msg); }

} // namespace yy

//===----------------------------------------------------------------------===//
// ParserState
//===----------------------------------------------------------------------===//

ParserState::ParserState(std::string_view Text, const std::string &BufferName, ASTContext &Ctx,
                         DiagnosticEngine &Diags, bool IsStdlib, bool DoubleLiterals)
    : Text(Text), Ctx(Ctx), Diags(Diags), IsStdlib(IsStdlib), DoubleLiterals(DoubleLiterals),
      File(Diags.getSourceManager().internFileName(BufferName)) {
  Tok.Begin = Tok.End = SourceLoc{File, 1, 1};
}

void ParserState::error(SourceLoc Loc, const std::string &Msg) {
  if (Aborted)
    return;
  Diags.error(Loc, Msg);
}

bool ParserState::nestingTooDeep(SourceLoc Loc, const char *What) {
  if (!Aborted)
    Diags.error(Loc, std::string(What) + " is nested too deeply (limit " +
                         std::to_string(ASTContext::MaxNestingDepth) + ")");
  Aborted = true;
  return true;
}

void ParserState::advance(const char *S, size_t Len) {
  Tok.Begin = SourceLoc{File, Line, Col};
  Tok.BeginOff = Offset;
  for (size_t I = 0; I < Len; ++I) {
    if (S[I] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
  Offset += static_cast<uint32_t>(Len);
  Tok.End = SourceLoc{File, Line, Col};
  Tok.EndOff = Offset;
}

SrcSpan ParserState::here() const {
  SrcSpan S;
  S.Begin = S.End = SourceLoc{File, Line, Col};
  S.BeginOff = S.EndOff = Offset;
  return S;
}

std::string ParserState::decodeEscapes(std::string_view Body, SourceLoc Loc) {
  std::string Out;
  for (size_t I = 0; I < Body.size(); ++I) {
    char C = Body[I];
    if (C != '\\' || I + 1 >= Body.size()) {
      Out += C;
      continue;
    }
    char E = Body[++I];
    switch (E) {
    case 'n': Out += '\n'; break;
    case 't': Out += '\t'; break;
    case 'r': Out += '\r'; break;
    case 'a': Out += '\a'; break;
    case 'b': Out += '\b'; break;
    case 'f': Out += '\f'; break;
    case 'v': Out += '\v'; break;
    case '\\': Out += '\\'; break;
    case '\'': Out += '\''; break;
    case '"': Out += '"'; break;
    case '?': Out += '?'; break;
    case '\n': break; // line continuation
    case 'x': {
      unsigned V = 0, Digits = 0;
      while (I + 1 < Body.size() && std::isxdigit(static_cast<unsigned char>(Body[I + 1]))) {
        char H = Body[++I];
        V = V * 16 + (H <= '9' ? H - '0' : (H | 0x20) - 'a' + 10);
        if (V > 0xff)
          V = 0x100; // stays out of range without overflowing
        ++Digits;
      }
      if (!Digits)
        error(Loc, "\\x used with no following hex digits");
      else if (V > 0xff)
        error(Loc, "hex escape sequence out of range");
      Out += static_cast<char>(V & 0xff);
      break;
    }
    default:
      if (E >= '0' && E <= '7') {
        unsigned V = E - '0';
        for (int N = 1; N < 3 && I + 1 < Body.size() && Body[I + 1] >= '0' && Body[I + 1] <= '7';
             ++N)
          V = V * 8 + (Body[++I] - '0');
        if (V > 0xff)
          error(Loc, "octal escape sequence out of range");
        Out += static_cast<char>(V & 0xff);
      } else {
        unsigned char U = static_cast<unsigned char>(E);
        static const char Hex[] = "0123456789ABCDEF";
        std::string Shown = U >= 0x21 && U < 0x7f ? std::string(1, E)
                                                  : std::string("x") + Hex[U >> 4] + Hex[U & 15];
        error(Loc, "unknown escape sequence '\\" + Shown + "'");
        Out += E;
      }
      break;
    }
  }
  return Out;
}

void ParserState::pushScope() { Ctx.ParserScopes.emplace_back(); }

void ParserState::popScopesTo(size_t Depth) {
  if (Depth >= 1 && Ctx.ParserScopes.size() > Depth)
    Ctx.ParserScopes.resize(Depth);
}

const Type *ParserState::lookupTypeName(const std::string &Name) const {
  for (auto It = Ctx.ParserScopes.rbegin(); It != Ctx.ParserScopes.rend(); ++It) {
    // A variable of the same name in an inner scope hides the type.
    if (It->Constants.count(Name))
      return nullptr;
    auto Found = It->TypeNames.find(Name);
    if (Found != It->TypeNames.end())
      return Found->second;
  }
  return nullptr;
}

const Type *ParserState::lookupTypeNameInCurrentScope(const std::string &Name) const {
  auto Found = Ctx.ParserScopes.back().TypeNames.find(Name);
  return Found == Ctx.ParserScopes.back().TypeNames.end() ? nullptr : Found->second;
}

void ParserState::declareTypeName(const std::string &Name, const Type *T) {
  Ctx.ParserScopes.back().Constants.erase(Name);
  Ctx.ParserScopes.back().TypeNames[Name] = T;
}

void ParserState::bindTemplateParams(const std::vector<TemplateParam> &Params,
                                     const std::vector<TemplateArg> &Args) {
  pushScope();
  for (size_t I = 0; I < Params.size() && I < Args.size(); ++I) {
    if (Params[I].IsType) {
      declareTypeName(Params[I].Name, Args[I].Ty);
    } else {
      declareConstant(Params[I].Name, Args[I].Value);
      TemplateValues[Params[I].Name] = {Args[I].Value, Params[I].ValueType};
    }
  }
}

void ParserState::endTemplateDeclaration() {
  TemplateValues.clear();
  DeclaringTemplate = false;
}

void ParserState::declareConstant(const std::string &Name, std::optional<int64_t> Value) {
  Ctx.ParserScopes.back().TypeNames.erase(Name);
  Ctx.ParserScopes.back().Constants[Name] = Value;
}

std::optional<int64_t> ParserState::lookupConstant(const std::string &Name) const {
  for (auto It = Ctx.ParserScopes.rbegin(); It != Ctx.ParserScopes.rend(); ++It) {
    auto Found = It->Constants.find(Name);
    if (Found != It->Constants.end())
      return Found->second;
    if (It->TypeNames.count(Name))
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> ParserState::foldConstant(const Expr *E) const {
  // Arithmetic wraps in uint64_t: folding must not be undefined behaviour.
  if (auto *I = llvm::dyn_cast<IntegerLiteral>(E))
    return static_cast<int64_t>(I->Value);
  if (auto *B = llvm::dyn_cast<BoolLiteral>(E))
    return B->Value ? 1 : 0;
  if (auto *R = llvm::dyn_cast<DeclRefExpr>(E))
    return lookupConstant(R->Name);
  if (auto *C = llvm::dyn_cast<CastExpr>(E)) {
    if (C->Target && C->Target->isInteger())
      return foldConstant(C->Operand);
    return std::nullopt;
  }
  if (auto *U = llvm::dyn_cast<UnaryExpr>(E)) {
    auto V = foldConstant(U->Operand);
    if (!V)
      return std::nullopt;
    uint64_t X = static_cast<uint64_t>(*V);
    switch (U->Op) {
    case UnaryOp::Plus: return *V;
    case UnaryOp::Minus: return static_cast<int64_t>(0 - X);
    case UnaryOp::BitNot: return static_cast<int64_t>(~X);
    case UnaryOp::Not: return *V == 0 ? 1 : 0;
    default: return std::nullopt;
    }
  }
  if (auto *B = llvm::dyn_cast<BinaryExpr>(E)) {
    auto L = foldConstant(B->LHS), R = foldConstant(B->RHS);
    if (!L || !R)
      return std::nullopt;
    uint64_t A = static_cast<uint64_t>(*L), C = static_cast<uint64_t>(*R);
    switch (B->Op) {
    case BinaryOp::Add: return static_cast<int64_t>(A + C);
    case BinaryOp::Sub: return static_cast<int64_t>(A - C);
    case BinaryOp::Mul: return static_cast<int64_t>(A * C);
    case BinaryOp::Div:
      if (*R == 0 || (*L == INT64_MIN && *R == -1))
        return std::nullopt;
      return *L / *R;
    case BinaryOp::Rem:
      if (*R == 0 || (*L == INT64_MIN && *R == -1))
        return std::nullopt;
      return *L % *R;
    case BinaryOp::Shl: return C < 64 ? static_cast<int64_t>(A << C) : 0;
    case BinaryOp::Shr: return C < 64 ? (*L >> C) : (*L < 0 ? -1 : 0);
    case BinaryOp::BitAnd: return static_cast<int64_t>(A & C);
    case BinaryOp::BitOr: return static_cast<int64_t>(A | C);
    case BinaryOp::BitXor: return static_cast<int64_t>(A ^ C);
    case BinaryOp::LT: return *L < *R;
    case BinaryOp::GT: return *L > *R;
    case BinaryOp::LE: return *L <= *R;
    case BinaryOp::GE: return *L >= *R;
    case BinaryOp::EQ: return *L == *R;
    case BinaryOp::NE: return *L != *R;
    case BinaryOp::LogicalAnd: return *L && *R;
    case BinaryOp::LogicalOr: return *L || *R;
    case BinaryOp::Comma: return *R;
    }
  }
  if (auto *C = llvm::dyn_cast<ConditionalExpr>(E)) {
    auto Cond = foldConstant(C->Cond);
    if (!Cond)
      return std::nullopt;
    return foldConstant(*Cond ? C->Then : C->Else);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Building declarations
//===----------------------------------------------------------------------===//

namespace {

const char *specName(SpecItem::ItemKind K) {
  switch (K) {
  case SpecItem::Uniform: return "uniform";
  case SpecItem::Varying: return "varying";
  case SpecItem::Const: return "const";
  case SpecItem::Static: return "static";
  case SpecItem::Extern: return "extern";
  case SpecItem::ExternC: return "extern \"C\"";
  case SpecItem::Export: return "export";
  case SpecItem::Task: return "task";
  case SpecItem::Inline: return "inline";
  case SpecItem::NoInline: return "noinline";
  case SpecItem::Unmasked: return "unmasked";
  case SpecItem::Shared: return "shared";
  case SpecItem::Typedef: return "typedef";
  case SpecItem::Signed: return "signed";
  case SpecItem::Unsigned: return "unsigned";
  case SpecItem::Soa: return "soa";
  case SpecItem::Base: return "type";
  }
  return "?";
}

void addSpec(ParserState &PS, DeclSpec &Spec, const SpecItem &Item) {
  auto Duplicate = [&](bool &Flag) {
    if (Flag)
      PS.error(Item.Loc, std::string("duplicate '") + specName(Item.Kind) + "'");
    Flag = true;
  };
  switch (Item.Kind) {
  case SpecItem::Uniform:
  case SpecItem::Varying: {
    Variability V = Item.Kind == SpecItem::Uniform ? Variability::Uniform : Variability::Varying;
    if (Spec.Var == V)
      PS.error(Item.Loc, std::string("duplicate '") + specName(Item.Kind) + "'");
    else if (Spec.Var != Variability::Unbound)
      PS.error(Item.Loc, "cannot combine 'uniform' and 'varying'");
    Spec.Var = V;
    break;
  }
  case SpecItem::Const:
    Spec.Const = true; // `const const` is harmless, as in C
    break;
  case SpecItem::Static:
  case SpecItem::Extern:
  case SpecItem::ExternC: {
    StorageClass S = Item.Kind == SpecItem::Static ? StorageClass::Static : StorageClass::Extern;
    if (Spec.Storage != StorageClass::None && Spec.Storage != S)
      PS.error(Item.Loc, "cannot combine 'static' and 'extern'");
    Spec.Storage = S;
    if (Item.Kind == SpecItem::ExternC)
      Spec.ExternC = true;
    break;
  }
  case SpecItem::Export: Duplicate(Spec.Export); break;
  case SpecItem::Task: Duplicate(Spec.Task); break;
  case SpecItem::Inline: Spec.Inline = true; break;
  case SpecItem::NoInline: Spec.NoInline = true; break;
  case SpecItem::Unmasked: Duplicate(Spec.Unmasked); break;
  case SpecItem::Shared: Duplicate(Spec.Shared); break;
  case SpecItem::Typedef: Duplicate(Spec.Typedef); break;
  case SpecItem::Signed:
  case SpecItem::Unsigned:
    if (Spec.Signed || Spec.Unsigned) {
      bool Same = (Item.Kind == SpecItem::Signed) == Spec.Signed;
      PS.error(Item.Loc, Same ? std::string("duplicate '") + specName(Item.Kind) + "'"
                              : std::string("cannot combine 'signed' and 'unsigned'"));
    }
    (Item.Kind == SpecItem::Signed ? Spec.Signed : Spec.Unsigned) = true;
    break;
  case SpecItem::Soa:
    if (Spec.SoaWidth)
      PS.error(Item.Loc, "duplicate 'soa'");
    Spec.SoaWidth = Item.SoaWidth;
    Spec.SoaLoc = Item.Loc;
    break;
  case SpecItem::Base:
    if (Spec.Base) {
      if (!Spec.Invalid)
        PS.error(Item.Loc, "cannot combine '" + Spec.BaseSpelling + "' with '" + Item.Spelling +
                               "' in one declaration");
      Spec.Invalid = true;
      break;
    }
    Spec.Base = Item.T;
    Spec.BaseSpelling = Item.Spelling;
    Spec.BaseIsIntKeyword = Item.IsIntKeyword;
    break;
  }
}

/// `T<N>` after the base type: N must be a positive compile-time constant.
void setVectorLength(ParserState &PS, DeclSpec &Spec, std::optional<int64_t> Length,
                     SourceLoc Loc) {
  if (Spec.VectorLength) {
    PS.error(Loc, "a short vector type cannot have two lengths");
    Spec.Invalid = true;
  } else if (!Length) {
    PS.error(Loc, "short vector length must be a compile-time integer constant");
    Spec.Invalid = true;
  } else if (*Length <= 0) {
    PS.error(Loc, "short vector length must be positive, not " + std::to_string(*Length));
    Spec.Invalid = true;
  } else {
    Spec.VectorLength = static_cast<uint64_t>(*Length);
  }
  Spec.VectorLoc = Loc;
}

/// The base type: signedness and qualifiers applied to the written type.
const Type *finishSpec(ParserState &PS, DeclSpec &Spec) {
  TypeContext &Types = PS.Ctx.Types;
  const Type *T = Spec.Base;
  if (Spec.Signed || Spec.Unsigned) {
    if (!T) {
      T = Types.getAtomic(Spec.Unsigned ? Type::UInt32 : Type::Int32);
    } else if (Spec.BaseIsIntKeyword) {
      if (Spec.Unsigned) {
        switch (T->getKind()) {
        case Type::Int8: T = Types.getAtomic(Type::UInt8); break;
        case Type::Int16: T = Types.getAtomic(Type::UInt16); break;
        case Type::Int32: T = Types.getAtomic(Type::UInt32); break;
        default: T = Types.getAtomic(Type::UInt64); break;
        }
      }
    } else if (!Spec.Invalid) {
      PS.error(Spec.Loc, std::string("'") + (Spec.Unsigned ? "unsigned" : "signed") +
                             "' cannot be applied to '" + Spec.BaseSpelling + "'");
      Spec.Invalid = true;
    }
  }
  if (!T) {
    // Implicit int, as ISPC: `const uniform n = 4;` declares an int32.
    if (!Spec.Invalid)
      PS.Diags.warning(Spec.Loc, "no type specified in declaration: assuming int32");
    T = Types.getAtomic(Type::Int32);
  }
  if (Spec.SoaWidth)
    T = soaType(PS, Spec, T);
  if (Spec.VectorLength) {
    // ISPC: short vectors of the basic types only (not of arrays or structs);
    // `T<N>` in a function template's pattern has T's placeholder.
    bool Placeholder = T->isStruct() && T->getStructDecl()->IsTemplateParam;
    if (!T->isAtomic() && !T->isEnum() && !Placeholder) {
      PS.error(Spec.VectorLoc, "short vector elements must have a basic type like 'float' or "
                               "'int', not '" + T->toString() + "'");
      Spec.Invalid = true;
    } else {
      T = Types.getShortVector(T, Spec.VectorLength);
    }
  }
  if (Spec.Var != Variability::Unbound && !T->isVoid())
    T = Types.withVariability(T, Spec.Var);
  if (Spec.Const && !T->isVoid())
    T = Types.withConst(T, true);
  return T;
}

/// `soa<N> S`: the uniform block struct holding N elements of struct S member
/// by member (guide, "Structure of Array Types"); one block decl per (S, N).
/// The storage of N elements of `T` in soa layout, as ISPC lays it out: an
/// atomic T is `uniform T[N]`, an array of k E is k times the storage of E, a
/// struct is its soa<N> block (one block decl per (struct, N)); null after an
/// error. `Member` names the member being converted, for messages.
const Type *soaStorage(ParserState &PS, const Type *T, uint64_t N, SourceLoc Loc,
                       const std::string &Member) {
  TypeContext &Types = PS.Ctx.Types;
  std::string Soa = "soa<" + std::to_string(N) + ">";
  if (!T->isUnbound()) {
    PS.error(Loc, "cannot apply " + Soa + ": member '" + Member + "' is declared '" +
                      variabilityName(T->getVariability()) + "'");
    return nullptr;
  }
  if (T->isAtomic() || T->isEnum())
    return Types.getArray(Types.withVariability(T, Variability::Uniform), N);
  if (T->isArray() && T->getArraySize() > 0) {
    const Type *E = soaStorage(PS, T->getElementType(), N, Loc, Member);
    return E ? Types.getArray(E, T->getArraySize()) : nullptr;
  }
  if (!T->isStruct()) {
    PS.error(Loc, Soa + " of a struct with member '" + Member + "' of type '" + T->toString() +
                      "' is not supported yet");
    return nullptr;
  }
  StructDecl *S = T->getStructDecl();
  for (StructDecl *D : PS.Ctx.SoaStructs)
    if (D->SoaOf == S && D->SoaWidth == N)
      return Types.getStruct(D, Variability::Uniform, T->isConst());
  if (!S->IsComplete) {
    PS.error(Loc, Soa + " needs the definition of '" + T->toString() + "'");
    return nullptr;
  }
  auto *D = PS.Ctx.makeDecl<StructDecl>(S->Loc, Soa + " " + S->Name);
  D->IsComplete = true;
  D->SoaOf = S;
  D->SoaWidth = static_cast<unsigned>(N);
  for (const FieldDecl &F : S->Fields) {
    const Type *FT = F.Ty ? soaStorage(PS, F.Ty, N, Loc, F.Name) : nullptr;
    if (!FT)
      return nullptr;
    D->Fields.push_back(FieldDecl{F.Loc, F.Name, FT});
  }
  PS.Ctx.SoaStructs.push_back(D);
  return Types.getStruct(D, Variability::Uniform, T->isConst());
}

/// `soa<N> S`: the uniform block struct holding N elements of struct S member
/// by member (guide, "Structure of Array Types").
const Type *soaType(ParserState &PS, DeclSpec &Spec, const Type *T) {
  uint64_t N = Spec.SoaWidth;
  if (Spec.Var != Variability::Unbound) {
    PS.error(Spec.SoaLoc, std::string("'") + variabilityName(Spec.Var) + "' and 'soa<" +
                              std::to_string(N) + ">' cannot both qualify a type");
    Spec.Var = Variability::Unbound;
  }
  if (!T->isStruct()) {
    PS.error(Spec.SoaLoc, "soa<" + std::to_string(N) +
                              "> can only be applied to a struct type, not '" + T->toString() +
                              "'");
    return T;
  }
  const Type *Block = soaStorage(PS, T, N, Spec.SoaLoc, "");
  return Block ? Block : T;
}

FunctionFlags functionFlags(const DeclSpec &Spec) {
  FunctionFlags F;
  F.Export = Spec.Export;
  F.Task = Spec.Task;
  F.ExternC = Spec.ExternC;
  F.Unmasked = Spec.Unmasked;
  return F;
}

bool addChunk(ParserState &PS, Declarator &D, DeclChunk C) {
  if (D.Chunks.size() >= ASTContext::MaxNestingDepth) {
    PS.nestingTooDeep(C.Loc, "declarator");
    return false;
  }
  // A suffix binds tighter than what came before it: `a[2][3]` is an array
  // of 2 arrays of 3, so the new chunk is applied before the existing ones.
  D.Chunks.insert(D.Chunks.begin(), std::move(C));
  return true;
}

/// How many types are nested inside T; bounds what recursive passes see.
unsigned typeNesting(const Type *T) {
  unsigned N = 0;
  while (T && N <= ASTContext::MaxNestingDepth &&
         (T->isPointer() || T->isArray() || T->isReference() || T->isFunction())) {
    T = T->isArray() ? T->getElementType() : T->isFunction() ? T->getReturnType() : T->getPointee();
    ++N;
  }
  return N;
}

const Type *applyDeclarator(ParserState &PS, const Type *Base, const Declarator &D,
                            const FunctionFlags &Flags) {
  TypeContext &Types = PS.Ctx.Types;
  const Type *T = Base;
  for (size_t I = 0; I < D.Chunks.size(); ++I) {
    const DeclChunk &C = D.Chunks[I];
    switch (C.Kind) {
    case DeclChunk::Pointer:
      T = Types.getPointer(T, C.Var, C.Const);
      break;
    case DeclChunk::Reference:
      T = Types.getReference(T);
      break;
    case DeclChunk::Array: {
      // `T[0]` is unsized, like `T[]`, as in ISPC: it takes its size from an
      // initializer, or ends a struct as a flexible array member.
      uint64_t Size = 0;
      if (C.Size) {
        std::optional<int64_t> V = PS.foldConstant(C.Size);
        if (!V)
          PS.error(C.SizeLoc, "array size must be an integer constant expression");
        else if (*V < 0)
          PS.error(C.SizeLoc, "array size must be positive");
        else
          Size = static_cast<uint64_t>(*V);
      }
      T = Types.getArray(T, Size);
      break;
    }
    case DeclChunk::Function: {
      std::vector<const Type *> Params;
      for (VarDecl *P : C.Params)
        Params.push_back(P->Ty ? P->Ty : Types.getAtomic(Type::Int32));
      // Only the name's own function level carries the declaration's flags.
      T = Types.getFunction(T, std::move(Params),
                            I + 1 == D.Chunks.size() ? Flags : FunctionFlags());
      break;
    }
    }
  }
  if (typeNesting(T) > ASTContext::MaxNestingDepth) {
    PS.nestingTooDeep(D.Loc, "type");
    return Types.getAtomic(Type::Int32);
  }
  return T;
}

void takePendingTags(ParserState &PS, std::vector<Decl *> &Out) {
  for (Decl *D : PS.PendingTags)
    Out.push_back(D);
  PS.PendingTags.clear();
}

/// Complains about qualifiers that only make sense on functions.
void checkNonFunctionSpec(ParserState &PS, const DeclSpec &Spec, SourceLoc Loc) {
  const char *Bad = Spec.Export     ? "export"
                    : Spec.Task     ? "task"
                    : Spec.Inline   ? "inline"
                    : Spec.NoInline ? "noinline"
                    : Spec.Unmasked ? "unmasked"
                    : Spec.ExternC  ? "extern \"C\""
                                    : nullptr;
  if (Bad)
    PS.error(Loc, std::string("'") + Bad + "' can only be applied to functions");
}

FunctionDecl *makeFunction(ParserState &PS, DeclSpec &Spec, Declarator &D, const Type *Ty) {
  if (Spec.Shared)
    PS.error(D.Loc, "'shared' cannot be applied to a function");
  auto *F = PS.Ctx.makeDecl<FunctionDecl>(D.Loc, D.Name, Ty);
  if (!D.Chunks.empty() && D.Chunks.back().Kind == DeclChunk::Function)
    F->Params = D.Chunks.back().Params;
  F->Storage = Spec.Storage;
  F->IsInline = Spec.Inline;
  F->IsNoInline = Spec.NoInline;
  F->IsStdlib = PS.IsStdlib;
  F->IsSpecialization = D.HasTemplateArgs;
  F->SpecializationArgs = D.TemplateArgs;
  if (PS.DeclaringTemplate)
    PS.Ctx.FunctionTemplates[D.Name]; // a template name from here on
  return F;
}

std::vector<Decl *> finishDeclaration(ParserState &PS, DeclSpec &Spec,
                                      std::vector<InitDeclarator> &Decls) {
  std::vector<Decl *> Out;
  const Type *Base = finishSpec(PS, Spec);
  takePendingTags(PS, Out);
  bool AtFileScope = PS.scopeDepth() <= 1;
  FunctionFlags Flags = functionFlags(Spec);
  for (InitDeclarator &ID : Decls) {
    Declarator &D = ID.D;
    const Type *T = applyDeclarator(PS, Base, D, Flags);
    if (PS.Aborted)
      return Out;
    if (Spec.Typedef) {
      if (ID.Init)
        PS.error(ID.Init->Loc, "a typedef cannot have an initializer");
      const Type *Old = PS.lookupTypeNameInCurrentScope(D.Name);
      if (Old && Old != T)
        PS.error(D.Loc, "redefinition of '" + D.Name + "' as a different type");
      // `typedef struct { ... } S;` gives the anonymous struct (or enum) the
      // typedef's name, as C++ does, so that messages and headers can name it.
      if (T->isStruct() && T->getStructDecl()->Name.empty())
        T->getStructDecl()->Name = D.Name;
      else if (T->isEnum() && T->getEnumDecl()->Name.empty())
        T->getEnumDecl()->Name = D.Name;
      Out.push_back(PS.Ctx.makeDecl<TypedefDecl>(D.Loc, D.Name, T));
      PS.declareTypeName(D.Name, T);
      continue;
    }
    if (D.isFunction()) {
      if (ID.Init)
        PS.error(ID.Init->Loc, "function '" + D.Name + "' cannot have an initializer");
      Out.push_back(makeFunction(PS, Spec, D, T));
      continue;
    }
    checkNonFunctionSpec(PS, Spec, D.Loc);
    auto *V = PS.Ctx.makeDecl<VarDecl>(D.Loc, D.Name, T);
    V->Init = ID.Init;
    V->Storage = Spec.Storage;
    V->IsShared = Spec.Shared;
    V->IsGlobal = AtFileScope;
    Out.push_back(V);
    // `const int N = 16;` may size arrays declared after it.
    std::optional<int64_t> Value;
    if (T->isConst() && T->isInteger() && ID.Init)
      Value = PS.foldConstant(ID.Init);
    PS.declareConstant(D.Name, Value);
  }
  return Out;
}

std::vector<FieldDecl> finishFields(ParserState &PS, DeclSpec &Spec,
                                    std::vector<Declarator> &Decls) {
  std::vector<FieldDecl> Out;
  const Type *Base = finishSpec(PS, Spec);
  if (Spec.Typedef || Spec.Storage != StorageClass::None || Spec.Export || Spec.Task ||
      Spec.Shared || Spec.Inline || Spec.NoInline || Spec.Unmasked)
    PS.error(Spec.Loc, "storage or function qualifier on a struct member");
  for (Declarator &D : Decls) {
    const Type *T = applyDeclarator(PS, Base, D, FunctionFlags());
    if (D.isFunction())
      PS.error(D.Loc, "struct member '" + D.Name + "' cannot be a function");
    Out.push_back(FieldDecl{D.Loc, D.Name, T});
  }
  return Out;
}

VarDecl *makeParam(ParserState &PS, DeclSpec &Spec, Declarator *D, Expr *Default, SourceLoc Loc) {
  const Type *Base = finishSpec(PS, Spec);
  const Type *T = D ? applyDeclarator(PS, Base, *D, FunctionFlags()) : Base;
  if (Spec.Typedef || Spec.Storage != StorageClass::None || Spec.Export || Spec.Task ||
      Spec.Shared)
    PS.error(Spec.Loc, "storage or function qualifier on a parameter");
  auto *V = PS.Ctx.makeDecl<VarDecl>(Loc, D ? D->Name : std::string(), T);
  V->IsParam = true;
  V->Init = Default;
  return V;
}

const Type *makeTypeName(ParserState &PS, DeclSpec &Spec, Declarator *D) {
  const Type *Base = finishSpec(PS, Spec);
  if (Spec.Typedef || Spec.Storage != StorageClass::None || Spec.Export || Spec.Task ||
      Spec.Shared || Spec.Inline || Spec.NoInline)
    PS.error(Spec.Loc, "storage or function qualifier in a type name");
  return D ? applyDeclarator(PS, Base, *D, FunctionFlags()) : Base;
}

std::pair<StructDecl *, bool> structForDefinition(ParserState &PS, const std::string &Name,
                                                  SourceLoc Loc) {
  if (const Type *T = PS.lookupTypeNameInCurrentScope(Name)) {
    if (T->isStruct() && !T->getStructDecl()->IsComplete) {
      T->getStructDecl()->Loc = Loc;
      return {T->getStructDecl(), false};
    }
    PS.error(Loc, "redefinition of '" + Name + "'");
  }
  auto *D = PS.Ctx.makeDecl<StructDecl>(Loc, Name);
  PS.declareTypeName(Name, PS.Ctx.Types.getStruct(D));
  return {D, true};
}

StructDecl *structForReference(ParserState &PS, const std::string &Name, SourceLoc Loc) {
  if (const Type *T = PS.lookupTypeName(Name)) {
    if (T->isStruct())
      return T->getStructDecl();
    PS.error(Loc, "'" + Name + "' is not a struct");
    return nullptr;
  }
  // `struct S` before any definition declares S, incomplete, here.
  auto *D = PS.Ctx.makeDecl<StructDecl>(Loc, Name);
  PS.declareTypeName(Name, PS.Ctx.Types.getStruct(D));
  PS.PendingTags.push_back(D);
  return D;
}

std::string sourceText(ParserState &PS, const SrcSpan &Span) {
  if (Span.EndOff <= Span.BeginOff || Span.EndOff > PS.Text.size())
    return std::string();
  std::string Out;
  bool Space = false;
  for (char C : PS.Text.substr(Span.BeginOff, Span.EndOff - Span.BeginOff)) {
    // Line breaks and runs of blanks read as one space in a message.
    if (C == '\n' || C == '\r' || C == '\t' || C == ' ') {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

void parseSource(std::string_view Text, const std::string &BufferName, ASTContext &Ctx,
                 DiagnosticEngine &Diags, bool IsStdlib, bool DoubleLiterals) {
  if (Ctx.ParserScopes.empty())
    Ctx.ParserScopes.emplace_back();
  // ISPC's built-in type names for pointer-sized and size integers (its
  // sizes: size_t is 32-bit, the others 64-bit, whatever --addressing says).
  auto &Names = Ctx.ParserScopes.front().TypeNames;
  Names.try_emplace("intptr_t", Ctx.Types.getAtomic(Type::Int64));
  Names.try_emplace("uintptr_t", Ctx.Types.getAtomic(Type::UInt64));
  Names.try_emplace("ptrdiff_t", Ctx.Types.getAtomic(Type::Int64));
  Names.try_emplace("size_t", Ctx.Types.getAtomic(Type::UInt32));
  if (Text.size() > 0x7fffffffu) {
    Diags.errorNoLoc("'" + BufferName + "' is too large to compile");
    return;
  }
  ParserState PS(Text, BufferName, Ctx, Diags, IsStdlib, IsStdlib || DoubleLiterals);
  void *Scanner = createScanner(PS);
  yy::Parser P(Scanner, PS);
  P.parse();
  destroyScanner(Scanner);
  // Scopes left open by an abandoned parse must not leak into the next buffer.
  PS.popScopesTo(1);
}

FunctionDecl *parseTemplateInstance(const FunctionTemplate &T, const std::vector<TemplateArg> &Args,
                                    ASTContext &Ctx, DiagnosticEngine &Diags) {
  ParserState PS(T.Text, *T.TextLoc.File, Ctx, Diags, /*IsStdlib=*/false, T.DoubleLiterals);
  // Positions continue from where the template's text starts in its file.
  PS.File = T.TextLoc.File;
  PS.Line = T.TextLoc.Line;
  PS.Col = T.TextLoc.Col;
  size_t Before = Ctx.TU.Decls.size();
  PS.bindTemplateParams(T.Params, Args);
  void *Scanner = createScanner(PS);
  yy::Parser P(Scanner, PS);
  P.parse();
  destroyScanner(Scanner);
  PS.popScopesTo(1);
  // The definition is the last declaration the parse added (after any tags).
  if (Ctx.TU.Decls.size() > Before)
    return llvm::dyn_cast<FunctionDecl>(Ctx.TU.Decls.back());
  return nullptr;
}

} // namespace spmdc
