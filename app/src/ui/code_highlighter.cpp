#include "ui/code_highlighter.h"

#include <QSet>
#include <array>
#include <optional>

namespace trit::ui {

// How a family of languages is scanned: the C-like ones, Python, shell, SQL and JSON share one
// token scanner (scanToken) with per-language switches; YAML, markup and diff are line-shaped.
enum class Family { Code, Yaml, Markup, Diff };

struct CodeLanguage {
  const char* label;
  Family family = Family::Code;
  QSet<QString> keywords;
  QSet<QString> types;
  QSet<QString> literals;         // coloured as numbers: true, false, null, None...
  QString lineComment;            // "//", "#", "--"; empty: none
  bool blockComments = false;     // /* ... */
  bool tripleQuotes = false;      // Python's """ and '''
  bool templateLiterals = false;  // JavaScript's `...${code}...`
  bool rawBackticks = false;      // Go's `raw strings`
  bool charLiterals = false;      // ' starts a character literal ('a', '\n'), not a string ('a in Rust is a lifetime)
  bool preprocessor = false;      // C's #include, #define...
  bool decorators = false;        // @name
  bool macros = false;            // Rust's name!
  bool shellVariables = false;    // $NAME, ${NAME}, $1
  bool capitalisedTypes = false;  // Name (not NAME) is a type
  bool caseInsensitive = false;   // SQL
  bool keys = false;              // JSON: a string before ':' is a key
};

namespace {

enum State : int {
  kNormal = 0,
  kBlockComment = 1,
  kTripleDouble = 2,
  kTripleSingle = 3,
  kTemplate = 4,
  kHtmlComment = 5,
  kInTag = 6,
  kRawBacktick = 7,
};

QSet<QString> words(const char* list) {
  QSet<QString> out;
  for (const QString& w : QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts)) out.insert(w);
  return out;
}

constexpr const char* kCKeywords =
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while";
constexpr const char* kCppKeywords =
    "alignas alignof and asm bool catch class co_await co_return co_yield concept const_cast consteval constexpr "
    "constinit decltype delete dynamic_cast explicit export final friend mutable namespace new noexcept not "
    "operator or override private protected public reinterpret_cast requires static_assert static_cast template "
    "this thread_local throw try typeid typename using virtual";
constexpr const char* kCTypes =
    "size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t "
    "uint64_t wchar_t char8_t char16_t char32_t FILE";
constexpr const char* kJsKeywords =
    "as async await break case catch class const continue debugger default delete do else export extends finally "
    "for from function get if import in instanceof let new of return set static super switch this throw try "
    "typeof var void while with yield";
constexpr const char* kTsKeywords =
    "abstract declare enum implements infer interface is keyof namespace private protected public readonly "
    "satisfies type";

const std::array<CodeLanguage, 15>& languages() {
  static const std::array<CodeLanguage, 15> all = [] {
    std::array<CodeLanguage, 15> l{};
    CodeLanguage& c = l[0];
    c.label = "C";
    c.keywords = words(kCKeywords);
    c.types = words(kCTypes);
    c.literals = words("NULL true false");
    c.lineComment = QStringLiteral("//");
    c.blockComments = c.charLiterals = c.preprocessor = true;

    CodeLanguage& cpp = l[1];
    cpp = c;
    cpp.label = "C++";
    cpp.keywords.unite(words(kCppKeywords));
    cpp.types.unite(words("string string_view vector map unordered_map set array optional unique_ptr shared_ptr"));
    cpp.literals = words("nullptr true false NULL");
    cpp.capitalisedTypes = true;

    CodeLanguage& py = l[2];
    py.label = "Python";
    py.keywords = words(
        "and as assert async await break case class continue def del elif else except finally for "
        "from global if import in is lambda match nonlocal not or pass raise return try while with "
        "yield");
    py.types = words("int float str bool list dict set tuple bytes bytearray object type complex frozenset");
    py.literals = words("True False None");
    py.lineComment = QStringLiteral("#");
    py.tripleQuotes = py.decorators = py.capitalisedTypes = true;

    CodeLanguage& js = l[3];
    js.label = "JavaScript";
    js.keywords = words(kJsKeywords);
    js.literals = words("true false null undefined NaN Infinity");
    js.lineComment = QStringLiteral("//");
    js.blockComments = js.templateLiterals = js.capitalisedTypes = true;

    CodeLanguage& ts = l[4];
    ts = js;
    ts.label = "TypeScript";
    ts.keywords.unite(words(kTsKeywords));
    ts.types = words("string number boolean object symbol bigint any unknown never void");
    ts.decorators = true;

    CodeLanguage& rs = l[5];
    rs.label = "Rust";
    rs.keywords = words(
        "as async await break const continue crate dyn else enum extern fn for if impl in let loop "
        "match mod move mut pub ref return self static struct super trait type unsafe use where "
        "while");
    rs.types = words("i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str Self");
    rs.literals = words("true false");
    rs.lineComment = QStringLiteral("//");
    rs.blockComments = rs.charLiterals = rs.macros = rs.capitalisedTypes = true;

    CodeLanguage& go = l[6];
    go.label = "Go";
    go.keywords = words(
        "break case chan const continue default defer else fallthrough for func go goto if import "
        "interface map package range return select struct switch type var");
    go.types = words(
        "any bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune "
        "string uint uint8 uint16 uint32 uint64 uintptr");
    go.literals = words("true false nil iota");
    go.lineComment = QStringLiteral("//");
    go.blockComments = go.rawBackticks = go.charLiterals = true;

    CodeLanguage& java = l[7];
    java.label = "Java";
    java.keywords = words(
        "abstract assert break case catch class const continue default do else enum extends final "
        "finally for goto if implements import instanceof interface native new package permits "
        "private protected public record return sealed static strictfp super switch "
        "synchronized this throw throws transient try var volatile while yield");
    java.types = words("boolean byte char double float int long short void");
    java.literals = words("true false null");
    java.lineComment = QStringLiteral("//");
    java.blockComments = java.charLiterals = java.decorators = java.capitalisedTypes = true;

    CodeLanguage& sh = l[8];
    sh.label = "Shell";
    sh.keywords = words(
        "if then else elif fi for while until do done case esac function in select return export "
        "local readonly declare unset shift exit break continue source alias set");
    sh.literals = words("true false");
    sh.lineComment = QStringLiteral("#");
    sh.shellVariables = true;

    CodeLanguage& json = l[9];
    json.label = "JSON";
    json.literals = words("true false null");
    json.keys = true;

    CodeLanguage& yaml = l[10];
    yaml.label = "YAML";
    yaml.family = Family::Yaml;
    yaml.literals = words("true false null yes no on off True False Null Yes No On Off TRUE FALSE NULL ~");

    CodeLanguage& html = l[11];
    html.label = "HTML";
    html.family = Family::Markup;

    CodeLanguage& xml = l[12];
    xml.label = "XML";
    xml.family = Family::Markup;

    CodeLanguage& sql = l[13];
    sql.label = "SQL";
    sql.keywords = words(
        "add all alter and as asc begin between by case check commit constraint create cross default "
        "delete desc distinct drop else end exists foreign from full group having if in index "
        "inner insert intersect into is join key left like limit not of offset on or order outer "
        "primary references returning right rollback select set table then transaction union "
        "unique update using values view when where with");
    sql.types = words(
        "int integer bigint smallint tinyint text varchar char boolean bool real float double numeric "
        "decimal date time timestamp blob serial");
    sql.literals = words("null true false");
    sql.lineComment = QStringLiteral("--");
    sql.blockComments = sql.caseInsensitive = true;

    CodeLanguage& diff = l[14];
    diff.label = "Diff";
    diff.family = Family::Diff;
    return l;
  }();
  return all;
}

bool isIdentStart(QChar c) {
  return c.isLetter() || c == QLatin1Char('_');
}
bool isIdent(QChar c) {
  return c.isLetterOrNumber() || c == QLatin1Char('_');
}

class LineScanner {
 public:
  LineScanner(const CodeLanguage& language, QStringView line, QList<CodeSpan>* spans)
      : l_(language), s_(line), n_(int(line.size())), out_(spans) {}

  void add(int start, int end, CodeToken kind) {
    if (end > start) out_->append({start, end - start, kind});
  }
  bool at(int i, QStringView what) const { return s_.mid(i).startsWith(what); }

  // The end of a quoted string starting at `i` (its quote), past the closing quote, or the line's end
  // when it is not closed on this line. Backslash escapes the next character.
  int stringEnd(int i, QChar quote) const {
    for (int j = i + 1; j < n_; ++j) {
      if (s_[j] == QLatin1Char('\\'))
        ++j;
      else if (s_[j] == quote)
        return j + 1;
    }
    return n_;
  }
  // Where `what` next occurs unescaped from `i`, or -1.
  int findUnescaped(int i, QStringView what) const {
    for (int j = i; j < n_; ++j) {
      if (s_[j] == QLatin1Char('\\'))
        ++j;
      else if (at(j, what))
        return j;
    }
    return -1;
  }
  // A character literal at `i`: 'a', '\n', '\x41', '\u{1F600}'. Returns its end, or -1 ('a in Rust is a
  // lifetime, 'static too).
  int charLiteralEnd(int i) const {
    if (i + 2 < n_ && s_[i + 1] != QLatin1Char('\\') && s_[i + 2] == QLatin1Char('\'')) return i + 3;
    if (i + 1 < n_ && s_[i + 1] == QLatin1Char('\\')) {
      for (int j = i + 3; j < n_ && j < i + 14; ++j)
        if (s_[j] == QLatin1Char('\'')) return j + 1;
    }
    return -1;
  }
  int numberEnd(int i) const {
    const bool hex = s_.mid(i, 2).compare(u"0x", Qt::CaseInsensitive) == 0;
    int j = i;
    while (j < n_) {
      const QChar c = s_[j];
      if (c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('.')) {
        // An exponent's sign belongs to the number: 1e-5, 0x1p+3 (in hex, e is a digit).
        const bool exponent =
            hex ? (c == QLatin1Char('p') || c == QLatin1Char('P')) : (c == QLatin1Char('e') || c == QLatin1Char('E'));
        if (exponent && j + 1 < n_ && (s_[j + 1] == QLatin1Char('+') || s_[j + 1] == QLatin1Char('-'))) ++j;
        ++j;
      } else if (c == QLatin1Char('\'') && l_.charLiterals && j + 1 < n_ && s_[j + 1].isDigit()) {
        j += 2;  // C++'s digit separator: 1'000'000
      } else {
        break;
      }
    }
    return j;
  }

  // The colour of a word, if it has one: literal, keyword, type, a function (followed by "("), or a
  // capitalised type name where the language writes types so (Name, not the constant NAME).
  std::optional<CodeToken> wordKind(QStringView word, int end) const {
    const QString key = l_.caseInsensitive ? word.toString().toLower() : word.toString();
    if (l_.literals.contains(key)) return CodeToken::Number;
    if (l_.keywords.contains(key)) return CodeToken::Keyword;
    if (l_.types.contains(key)) return CodeToken::Type;
    int j = end;
    while (j < n_ && s_[j] == QLatin1Char(' ')) ++j;
    if (j < n_ && s_[j] == QLatin1Char('(')) return CodeToken::Function;
    if (l_.capitalisedTypes && word.front().isUpper()) {
      for (QChar c : word)
        if (c.isLower()) return CodeToken::Type;
    }
    return std::nullopt;
  }

  // One token at `i`: colours it and returns the position after it. A construct left open at the end of
  // the line (block comment, triple-quoted or template string) sets `state` and returns the line's end.
  int token(int i, int& state) {
    const QChar c = s_[i];
    if (c.isSpace()) return i + 1;
    if (!l_.lineComment.isEmpty() && at(i, l_.lineComment) &&
        (!l_.shellVariables || i == 0 || s_[i - 1].isSpace())) {  // in shell, a#b is a word
      add(i, n_, CodeToken::Comment);
      return n_;
    }
    if (l_.blockComments && at(i, u"/*")) {
      const int e = int(s_.indexOf(u"*/", i + 2));
      if (e < 0) {
        add(i, n_, CodeToken::Comment);
        state = kBlockComment;
        return n_;
      }
      add(i, e + 2, CodeToken::Comment);
      return e + 2;
    }
    if (l_.tripleQuotes && (at(i, u"\"\"\"") || at(i, u"'''"))) {
      const QStringView quotes = s_.mid(i, 3);
      const int e = findUnescaped(i + 3, quotes);
      if (e < 0) {
        add(i, n_, CodeToken::String);
        state = quotes.front() == QLatin1Char('"') ? kTripleDouble : kTripleSingle;
        return n_;
      }
      add(i, e + 3, CodeToken::String);
      return e + 3;
    }
    if (c == QLatin1Char('"') || (c == QLatin1Char('\'') && !l_.charLiterals)) {
      const int e = stringEnd(i, c);
      if (l_.keys) {
        int j = e;
        while (j < n_ && s_[j].isSpace()) ++j;
        add(i, e, j < n_ && s_[j] == QLatin1Char(':') ? CodeToken::Function : CodeToken::String);
      } else {
        add(i, e, CodeToken::String);
      }
      return e;
    }
    if (c == QLatin1Char('\'')) {  // charLiterals
      const int e = charLiteralEnd(i);
      if (e < 0) return i + 1;
      add(i, e, CodeToken::String);
      return e;
    }
    if (c == QLatin1Char('`') && l_.templateLiterals) return templateLiteral(i + 1, i, state);
    if (c == QLatin1Char('`') && l_.rawBackticks) {
      const int e = int(s_.indexOf(QLatin1Char('`'), i + 1));
      if (e < 0) {
        add(i, n_, CodeToken::String);
        state = kRawBacktick;
        return n_;
      }
      add(i, e + 1, CodeToken::String);
      return e + 1;
    }
    if (l_.shellVariables && c == QLatin1Char('$') && i + 1 < n_) {
      int e = i + 1;
      if (s_[e] == QLatin1Char('{')) {
        const int close = int(s_.indexOf(QLatin1Char('}'), e));
        e = close < 0 ? n_ : close + 1;
      } else if (isIdentStart(s_[e])) {
        while (e < n_ && isIdent(s_[e])) ++e;
      } else if (s_[e].isDigit() || QStringView(u"?@#*$!-").contains(s_[e])) {
        ++e;
      } else {
        return i + 1;
      }
      add(i, e, CodeToken::Meta);
      return e;
    }
    if (l_.decorators && c == QLatin1Char('@') && i + 1 < n_ && isIdentStart(s_[i + 1])) {
      int e = i + 1;
      while (e < n_ && (isIdent(s_[e]) || s_[e] == QLatin1Char('.'))) ++e;
      add(i, e, CodeToken::Meta);
      return e;
    }
    if ((c.isDigit() || (c == QLatin1Char('.') && i + 1 < n_ && s_[i + 1].isDigit())) &&
        (i == 0 || !isIdent(s_[i - 1]))) {
      const int e = numberEnd(i);
      add(i, e, CodeToken::Number);
      return e;
    }
    if (isIdentStart(c) || (c == QLatin1Char('$') && l_.templateLiterals)) {
      int e = i + 1;
      while (e < n_ && (isIdent(s_[e]) || (s_[e] == QLatin1Char('$') && l_.templateLiterals))) ++e;
      if (l_.macros && e < n_ && s_[e] == QLatin1Char('!') && (e + 1 >= n_ || s_[e + 1] != QLatin1Char('='))) {
        add(i, e + 1, CodeToken::Meta);
        return e + 1;
      }
      if (const std::optional<CodeToken> kind = wordKind(s_.mid(i, e - i), e)) add(i, e, *kind);
      return e;
    }
    return i + 1;
  }

  // The text of a template literal from `i` (after its backtick, which is at `open`; -1 when the literal
  // began on an earlier line) to its closing backtick. ${...} inside is code, where strings and further
  // template literals nest. Sets `state` to kTemplate when the line ends inside it.
  int templateLiteral(int i, int open, int& state) {
    int segment = open < 0 ? i : open;
    while (i < n_) {
      if (s_[i] == QLatin1Char('\\')) {
        i += 2;
      } else if (s_[i] == QLatin1Char('`')) {
        add(segment, i + 1, CodeToken::String);
        return i + 1;
      } else if (at(i, u"${")) {
        add(segment, i + 2, CodeToken::String);
        int j = i + 2;
        int depth = 1;
        while (j < n_) {
          if (s_[j] == QLatin1Char('{')) {
            ++depth;
            ++j;
          } else if (s_[j] == QLatin1Char('}')) {
            if (--depth == 0) break;
            ++j;
          } else {
            int inner = kNormal;
            j = token(j, inner);
            if (inner != kNormal) {  // a nested construct runs past the line: the template goes on
              state = kTemplate;
              return n_;
            }
          }
        }
        if (j >= n_) {  // the line ends inside ${...}: carry on as template text on the next line
          state = kTemplate;
          return n_;
        }
        segment = j;  // the closing '}' is the template's again
        i = j + 1;
      } else {
        ++i;
      }
    }
    add(segment, n_, CodeToken::String);
    state = kTemplate;
    return n_;
  }

  int code(int state) {
    int i = 0;
    // What the previous line left open.
    switch (state) {
      case kBlockComment: {
        const int e = int(s_.indexOf(u"*/"));
        if (e < 0) {
          add(0, n_, CodeToken::Comment);
          return kBlockComment;
        }
        add(0, e + 2, CodeToken::Comment);
        i = e + 2;
        break;
      }
      case kTripleDouble:
      case kTripleSingle: {
        const int e = findUnescaped(0, state == kTripleDouble ? u"\"\"\"" : u"'''");
        if (e < 0) {
          add(0, n_, CodeToken::String);
          return state;
        }
        add(0, e + 3, CodeToken::String);
        i = e + 3;
        break;
      }
      case kTemplate: {
        int next = kNormal;
        i = templateLiteral(0, -1, next);
        if (next != kNormal) return next;
        break;
      }
      case kRawBacktick: {
        const int e = int(s_.indexOf(QLatin1Char('`')));
        if (e < 0) {
          add(0, n_, CodeToken::String);
          return kRawBacktick;
        }
        add(0, e + 1, CodeToken::String);
        i = e + 1;
        break;
      }
      default:
        break;
    }
    if (l_.preprocessor && i == 0) {
      int j = 0;
      while (j < n_ && s_[j].isSpace()) ++j;
      if (j < n_ && s_[j] == QLatin1Char('#')) {
        int e = j + 1;
        while (e < n_ && s_[e].isSpace()) ++e;
        while (e < n_ && isIdent(s_[e])) ++e;
        add(j, e, CodeToken::Meta);
        i = e;
        if (s_.mid(j).contains(u"include")) {  // <stdio.h> is a file name, like "x.h"
          int lt = int(s_.indexOf(QLatin1Char('<'), e));
          int gt = lt < 0 ? -1 : int(s_.indexOf(QLatin1Char('>'), lt));
          if (gt > lt) {
            add(lt, gt + 1, CodeToken::String);
            i = gt + 1;
          }
        }
      }
    }
    int next = kNormal;
    while (i < n_ && next == kNormal) i = token(i, next);
    return next;
  }

  // YAML: "key: value", list items, comments, anchors and aliases, tags, quoted and plain scalars.
  int yaml() {
    int i = 0;
    while (i < n_ && s_[i].isSpace()) ++i;
    if (at(i, u"---") || at(i, u"...")) {
      add(i, i + 3, CodeToken::Meta);
      i += 3;
    }
    while (at(i, u"- ") || (i + 1 == n_ && s_[i] == QLatin1Char('-'))) {
      i += 1;
      while (i < n_ && s_[i].isSpace()) ++i;
    }
    // A key: a quoted or plain word up to ": " or a final ':'.
    if (i < n_ && s_[i] != QLatin1Char('#')) {
      int keyEnd = -1;
      if (s_[i] == QLatin1Char('"') || s_[i] == QLatin1Char('\'')) {
        const int e = stringEnd(i, s_[i]);
        if (e < n_ && s_[e] == QLatin1Char(':')) keyEnd = e;
      } else {
        for (int j = i; j < n_; ++j) {
          if (s_[j] == QLatin1Char('#') && j > i && s_[j - 1].isSpace()) break;
          if (s_[j] == QLatin1Char(':') && (j + 1 == n_ || s_[j + 1].isSpace())) {
            keyEnd = j;
            break;
          }
        }
      }
      if (keyEnd > i) {
        add(i, keyEnd, CodeToken::Function);
        i = keyEnd + 1;
      }
    }
    while (i < n_) {
      const QChar c = s_[i];
      if (c.isSpace()) {
        ++i;
      } else if (c == QLatin1Char('#') && (i == 0 || s_[i - 1].isSpace())) {
        add(i, n_, CodeToken::Comment);
        return kNormal;
      } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
        const int e = stringEnd(i, c);
        add(i, e, CodeToken::String);
        i = e;
      } else if (c == QLatin1Char('&') || c == QLatin1Char('*') || c == QLatin1Char('!') || c == QLatin1Char('|') ||
                 c == QLatin1Char('>')) {
        int e = i + 1;
        while (e < n_ && !s_[e].isSpace()) ++e;
        add(i, e, CodeToken::Meta);
        i = e;
      } else {
        // A plain scalar up to a comment: a number or a literal is coloured, text is not.
        int e = i;
        while (e < n_ && !(s_[e] == QLatin1Char('#') && s_[e - 1].isSpace())) ++e;
        int end = e;
        while (end > i && s_[end - 1].isSpace()) --end;
        const QStringView scalar = s_.mid(i, end - i);
        bool number = false;
        scalar.toString().remove(QLatin1Char('_')).toDouble(&number);
        if (number || l_.literals.contains(scalar.toString())) add(i, end, CodeToken::Number);
        i = e;
      }
    }
    return kNormal;
  }

  // HTML and XML: tags (names as keywords, attributes as types, values as strings), comments, <!...>
  // and <?...?> as meta, entities as numbers; a tag or comment may span lines.
  int markup(int state) {
    int i = 0;
    while (i < n_) {
      if (state == kHtmlComment) {
        const int e = int(s_.indexOf(u"-->", i));
        if (e < 0) {
          add(i, n_, CodeToken::Comment);
          return kHtmlComment;
        }
        add(i, e + 3, CodeToken::Comment);
        i = e + 3;
        state = kNormal;
      } else if (state == kInTag) {
        const QChar c = s_[i];
        if (c == QLatin1Char('>') || at(i, u"/>") || at(i, u"?>")) {
          const int e = i + (c == QLatin1Char('>') ? 1 : 2);
          add(i, e, CodeToken::Keyword);
          i = e;
          state = kNormal;
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
          const int e = stringEnd(i, c);
          add(i, e, CodeToken::String);
          i = e;
        } else if (isIdentStart(c)) {
          int e = i + 1;
          while (e < n_ && (isIdent(s_[e]) || s_[e] == QLatin1Char('-') || s_[e] == QLatin1Char(':') ||
                            s_[e] == QLatin1Char('.')))
            ++e;
          add(i, e, CodeToken::Type);
          i = e;
        } else {
          ++i;
        }
      } else if (at(i, u"<!--")) {
        state = kHtmlComment;
      } else if (at(i, u"<!") || at(i, u"<?")) {
        int e = i + 2;
        while (e < n_ && isIdent(s_[e])) ++e;
        add(i, e, CodeToken::Meta);
        i = e;
        state = kInTag;
      } else if (s_[i] == QLatin1Char('<') && i + 1 < n_ &&
                 (isIdentStart(s_[i + 1]) || s_[i + 1] == QLatin1Char('/'))) {
        int e = i + 1;
        if (s_[e] == QLatin1Char('/')) ++e;
        while (e < n_ &&
               (isIdent(s_[e]) || s_[e] == QLatin1Char('-') || s_[e] == QLatin1Char(':') || s_[e] == QLatin1Char('.')))
          ++e;
        add(i, e, CodeToken::Keyword);
        i = e;
        state = kInTag;
      } else if (s_[i] == QLatin1Char('&')) {
        const int semi = int(s_.indexOf(QLatin1Char(';'), i));
        if (semi > i && semi - i <= 10) {
          add(i, semi + 1, CodeToken::Number);
          i = semi + 1;
        } else {
          ++i;
        }
      } else {
        ++i;
      }
    }
    return state;
  }

  int diff() {
    if (at(0, u"+++") || at(0, u"---") || at(0, u"diff ") || at(0, u"index "))
      add(0, n_, CodeToken::Keyword);
    else if (at(0, u"@@"))
      add(0, n_, CodeToken::Meta);
    else if (at(0, u"+"))
      add(0, n_, CodeToken::Added);
    else if (at(0, u"-"))
      add(0, n_, CodeToken::Removed);
    return kNormal;
  }

 private:
  const CodeLanguage& l_;
  QStringView s_;
  int n_;
  QList<CodeSpan>* out_;
};

}  // namespace

const CodeLanguage* codeLanguage(QStringView name) {
  static const struct {
    const char* names;
    int index;
  } kAliases[] = {
      {"c h", 0},
      {"cpp c++ cc cxx hpp hh hxx h++ cu cuda", 1},
      {"python py python3 py3 pyi gyp", 2},
      {"javascript js jsx mjs cjs node", 3},
      {"typescript ts tsx mts cts", 4},
      {"rust rs", 5},
      {"go golang", 6},
      {"java", 7},
      {"shell sh bash zsh ksh console shellsession shell-session", 8},
      {"json jsonc json5 geojson jsonl", 9},
      {"yaml yml", 10},
      {"html htm xhtml", 11},
      {"xml svg xsd xsl xslt plist", 12},
      {"sql sqlite postgresql postgres psql mysql plsql", 13},
      {"diff patch udiff", 14},
  };
  const QString wanted = name.trimmed().toString().toLower();
  if (wanted.isEmpty()) return nullptr;
  for (const auto& alias : kAliases) {
    if (QString::fromLatin1(alias.names).split(QLatin1Char(' ')).contains(wanted))
      return &languages()[std::size_t(alias.index)];
  }
  return nullptr;
}

QString codeLanguageLabel(const CodeLanguage* language) {
  return language ? QString::fromLatin1(language->label) : QString();
}

int highlightCodeLine(const CodeLanguage& language, QStringView line, int state, QList<CodeSpan>* spans) {
  LineScanner scanner(language, line, spans);
  switch (language.family) {
    case Family::Yaml:
      return scanner.yaml();
    case Family::Markup:
      return scanner.markup(state == kHtmlComment || state == kInTag ? state : kNormal);
    case Family::Diff:
      return scanner.diff();
    case Family::Code:
      break;
  }
  return scanner.code(state);
}

QList<QList<CodeSpan>> highlightCode(const CodeLanguage& language, QStringView text) {
  QList<QList<CodeSpan>> lines;
  int state = kNormal;
  for (QStringView line : text.split(QLatin1Char('\n'))) {
    QList<CodeSpan> spans;
    state = highlightCodeLine(language, line, state, &spans);
    lines.append(spans);
  }
  return lines;
}

}  // namespace trit::ui
