#pragma once
// Syntax highlighting of the code blocks in replies, one line at a time: a line and the state the
// previous line ended in give the coloured spans of the line and the state it ends in (inside a block
// comment, a triple-quoted string, a template literal, an HTML comment or tag). That is the shape of
// QSyntaxHighlighter (code_document.h), which then re-colours only the lines that changed and those
// after them whose starting state changed: appending to a streaming code block colours the new lines
// only. Debian 12 has no Qt 6 highlighting library (KSyntaxHighlighting there is Qt 5), hence this
// small one: C and C++, Python, JavaScript and TypeScript, Rust, Go, Java, shell, JSON, YAML, HTML and
// XML, SQL and diff, by the fence's language name or a common alias.
#include <QList>
#include <QString>
#include <QStringView>

namespace trit::ui {

enum class CodeToken {
  Keyword,   // language keywords; HTML/XML tag names
  Type,      // type names (built-in, or capitalised in C-like languages); HTML/XML attribute names
  Function,  // a name followed by "("; JSON and YAML keys
  String,    // string and character literals, template literals
  Number,    // numbers and the literals true, false, null, None...
  Comment,
  Meta,     // preprocessor lines, decorators, macros, shell variables, diff hunk headers
  Added,    // diff: an added line
  Removed,  // diff: a removed line
};
inline constexpr int kCodeTokenKinds = 9;

struct CodeSpan {
  int start = 0;
  int length = 0;
  CodeToken kind = CodeToken::Keyword;
  bool operator==(const CodeSpan&) const = default;
};

struct CodeLanguage;  // the rules of one language (code_highlighter.cpp)

// The rules for a fence's language name ("python", "py", "C++", "tsx", "shell"...), or null when the
// language is unknown (then the block is shown uncoloured).
const CodeLanguage* codeLanguage(QStringView name);
// The language's name as shown on the block ("Python", "C++"); empty for null.
QString codeLanguageLabel(const CodeLanguage* language);

// The spans of one line (without its newline), in order and not overlapping, given the state the
// previous line ended in (0 at the first line). Returns the state this line ends in.
int highlightCodeLine(const CodeLanguage& language, QStringView line, int state, QList<CodeSpan>* spans);

// Test helper: the spans of every line of `text`, each line starting in the state the previous one ended in.
QList<QList<CodeSpan>> highlightCode(const CodeLanguage& language, QStringView text);

}  // namespace trit::ui
