// The code blocks' highlighter (app/src/ui/code_highlighter.h) on tricky input: comment markers inside
// strings and strings inside comments, unterminated strings and comments, constructs that span lines
// (block comments, triple-quoted strings, template literals with nested templates, HTML comments and
// tags, Go raw strings), C++'s nested templates and digit separators, Rust's lifetimes and macros,
// shell's # inside words, JSON and YAML keys, SQL case, diff lines, and the language names.
#include <QTest>

#include "ui/code_highlighter.h"

using trit::ui::CodeSpan;
using trit::ui::CodeToken;

namespace {

QString kindName(CodeToken k) {
  switch (k) {
    case CodeToken::Keyword:
      return QStringLiteral("kw");
    case CodeToken::Type:
      return QStringLiteral("type");
    case CodeToken::Function:
      return QStringLiteral("fn");
    case CodeToken::String:
      return QStringLiteral("str");
    case CodeToken::Number:
      return QStringLiteral("num");
    case CodeToken::Comment:
      return QStringLiteral("com");
    case CodeToken::Meta:
      return QStringLiteral("meta");
    case CodeToken::Added:
      return QStringLiteral("add");
    case CodeToken::Removed:
      return QStringLiteral("del");
  }
  return {};
}

// Every line's spans as "kind:text", lines joined by " | ".
QString spans(const char* language, const QString& text) {
  const auto* lang = trit::ui::codeLanguage(QString::fromLatin1(language));
  if (!lang) return QStringLiteral("<unknown language>");
  const QStringList lines = text.split(QLatin1Char('\n'));
  const QList<QList<CodeSpan>> all = trit::ui::highlightCode(*lang, text);
  QStringList out;
  for (qsizetype i = 0; i < all.size(); ++i) {
    QStringList parts;
    int last = 0;
    for (const CodeSpan& s : all[i]) {
      // In order, inside the line and not overlapping: what QSyntaxHighlighter expects.
      if (s.start < last || s.length <= 0 || s.start + s.length > lines[i].size()) return QStringLiteral("<bad span>");
      last = s.start + s.length;
      parts << kindName(s.kind) + QLatin1Char(':') + lines[i].mid(s.start, s.length);
    }
    out << parts.join(QLatin1Char(' '));
  }
  return out.join(QStringLiteral(" | "));
}

}  // namespace

class TestCodeHighlighter : public QObject {
  Q_OBJECT
 private slots:
  void languageNamesAndAliases() {
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"py")), u"Python"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"C++")), u"C++"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"TSX")), u"TypeScript"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"yml")), u"YAML"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"bash")), u"Shell"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"golang")), u"Go"_qs);
    QCOMPARE(trit::ui::codeLanguageLabel(trit::ui::codeLanguage(u"patch")), u"Diff"_qs);
    QVERIFY(trit::ui::codeLanguage(u"cobol") == nullptr);
    QVERIFY(trit::ui::codeLanguage(u"") == nullptr);
    QCOMPARE(trit::ui::codeLanguageLabel(nullptr), QString());
  }

  void commentMarkersInsideStrings() {
    QCOMPARE(spans("python", u"s = \"# not a comment\"  # real"_qs), u"str:\"# not a comment\" com:# real"_qs);
    QCOMPARE(spans("cpp", u"auto s = \"/* no */ // no\"; // yes"_qs), u"kw:auto str:\"/* no */ // no\" com:// yes"_qs);
    QCOMPARE(spans("sql", u"select '-- no' -- yes"_qs), u"kw:select str:'-- no' com:-- yes"_qs);
    // And strings inside comments stay comment.
    QCOMPARE(spans("js", u"// \"not a string\" `nor this`"_qs), u"com:// \"not a string\" `nor this`"_qs);
  }

  void escapesInStrings() {
    QCOMPARE(spans("c", u"\"a\\\"b\" + c"_qs), u"str:\"a\\\"b\""_qs);
    QCOMPARE(spans("python", u"'it\\'s' + x"_qs), u"str:'it\\'s'"_qs);
  }

  void unterminatedStringEndsWithTheLine() {
    QCOMPARE(spans("python", u"x = \"abc\ny = 1"_qs), u"str:\"abc | num:1"_qs);
    QCOMPARE(spans("js", u"let s = 'open\nlet n = 2"_qs), u"kw:let str:'open | kw:let num:2"_qs);
  }

  void blockCommentsSpanLines() {
    QCOMPARE(spans("c", u"int a; /* start\nstill \"no string\"\nend */ int b;"_qs),
             u"kw:int com:/* start | com:still \"no string\" | com:end */ kw:int"_qs);
    // Never closed: every later line is comment.
    QCOMPARE(spans("java", u"/** doc\n int x = 1;"_qs), u"com:/** doc | com: int x = 1;"_qs);
  }

  void tripleQuotedStringsSpanLines() {
    QCOMPARE(spans("python", u"doc = \"\"\"start\n# inside\nend\"\"\" # after"_qs),
             u"str:\"\"\"start | str:# inside | str:end\"\"\" com:# after"_qs);
    QCOMPARE(spans("python", u"'''a \"\"\" b'''"_qs), u"str:'''a \"\"\" b'''"_qs);
  }

  void templateLiteralsNest() {
    // A template inside a substitution inside a template, a string in the substitution, then code again.
    QCOMPARE(spans("js", u"const s = `a ${b ? `x${y}z` : 'w'} c`; f(1)"_qs),
             u"kw:const str:`a ${ str:`x${ str:}z` str:'w' str:} c` fn:f num:1"_qs);
    QCOMPARE(spans("ts", u"let t = `one\ntwo ${n} three`;"_qs), u"kw:let str:`one | str:two ${ str:} three`"_qs);
  }

  void cppTemplatesAndLiterals() {
    QCOMPARE(spans("cpp", u"std::map<std::string, std::vector<int>> m{1'000'000, '\\n', 0x1Fp+3};"_qs),
             u"type:map type:string type:vector kw:int num:1'000'000 str:'\\n' num:0x1Fp+3"_qs);
    QCOMPARE(spans("cpp", u"#include <vector>\n#define N 3"_qs), u"meta:#include str:<vector> | meta:#define num:3"_qs);
    QCOMPARE(spans("cpp", u"Widget w = make(nullptr);"_qs), u"type:Widget fn:make num:nullptr"_qs);
  }

  void rustLifetimesAndMacros() {
    QCOMPARE(spans("rust", u"fn f<'a>(x: &'a str) -> char { println!(\"{}\", 'c') }"_qs),
             u"kw:fn type:str type:char meta:println! str:\"{}\" str:'c'"_qs);
  }

  void goRawStringsSpanLines() {
    QCOMPARE(spans("go", u"s := `raw \\n\nstill` + x"_qs), u"str:`raw \\n | str:still`"_qs);
  }

  void shellWordsAndVariables() {
    QCOMPARE(spans("bash", u"echo a#b $HOME ${PATH} $1 # note"_qs), u"meta:$HOME meta:${PATH} meta:$1 com:# note"_qs);
    QCOMPARE(spans("sh", u"if [ -f x ]; then exit 1; fi"_qs), u"kw:if kw:then kw:exit num:1 kw:fi"_qs);
  }

  void jsonKeysAndValues() {
    QCOMPARE(spans("json", u"{\"key\": \"value\", \"n\": -1.5e-3, \"ok\": true, \"x\" : null}"_qs),
             u"fn:\"key\" str:\"value\" fn:\"n\" num:1.5e-3 fn:\"ok\" num:true fn:\"x\" num:null"_qs);
  }

  void yamlKeysAndScalars() {
    QCOMPARE(
        spans("yaml", u"name: \"x: y\" # c\n- port: 8080\nurl: http://a:b\nok: yes\n---\nref: *anchor"_qs),
        u"fn:name str:\"x: y\" com:# c | fn:port num:8080 | fn:url | fn:ok num:yes | meta:--- | fn:ref meta:*anchor"_qs);
  }

  void markupTagsAndComments() {
    QCOMPARE(spans("html", u"<a href=\"x\">link &amp; more</a> <!-- c\nstill -->"_qs),
             u"kw:<a type:href str:\"x\" kw:> num:&amp; kw:</a kw:> com:<!-- c | com:still -->"_qs);
    // A tag across lines keeps its attributes.
    QCOMPARE(spans("xml", u"<item\n  id=\"1\"/>"_qs), u"kw:<item | type:id str:\"1\" kw:/>"_qs);
  }

  void sqlIsCaseInsensitive() {
    QCOMPARE(spans("sql", u"SELECT name FROM t WHERE id = 'it''s'"_qs),
             u"kw:SELECT kw:FROM kw:WHERE str:'it' str:'s'"_qs);
  }

  void diffLines() {
    QCOMPARE(spans("diff", u"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same"_qs),
             u"kw:--- a/x | kw:+++ b/x | meta:@@ -1 +1 @@ | del:-old | add:+new | "_qs);
  }

  void pythonDecoratorsAndTypes() {
    QCOMPARE(spans("py", u"@dataclass\nclass Point(Base): x: int = None"_qs),
             u"meta:@dataclass | kw:class fn:Point type:Base type:int num:None"_qs);
  }
};

QTEST_APPLESS_MAIN(TestCodeHighlighter)
#include "tst_code_highlighter.moc"
