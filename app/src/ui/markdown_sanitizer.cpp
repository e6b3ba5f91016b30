#include "ui/markdown_sanitizer.h"

namespace trit::ui {
namespace {

// Length of the run of backticks starting at i.
qsizetype backtickRun(const QString& s, qsizetype i) {
  qsizetype n = 0;
  while (i + n < s.size() && s[i + n] == u'`') ++n;
  return n;
}

// Index just past the backtick run of exactly `len` that closes a code span opened before `from`,
// or -1 when the span is never closed (CommonMark then shows the opening backticks literally).
qsizetype closingRun(const QString& s, qsizetype from, qsizetype len) {
  qsizetype i = from;
  while (i < s.size()) {
    if (s[i] == u'`') {
      const qsizetype run = backtickRun(s, i);
      if (run == len) return i + run;
      i += run;
    } else {
      ++i;
    }
  }
  return -1;
}

}  // namespace

QString sanitizeMarkdown(const QString& markdown) {
  QString out;
  out.reserve(markdown.size() + markdown.size() / 16);
  qsizetype i = 0;
  while (i < markdown.size()) {
    const QChar c = markdown[i];
    if (c == u'\\' && i + 1 < markdown.size()) {
      // An escaped character is literal already; copy the pair so "\<" is not turned into "\&lt;".
      // An escaped "!" before "[" must stay escaped, and it is, because both characters are copied.
      if (markdown[i + 1] == u'<') {
        out += QStringLiteral("&lt;");
      } else {
        out += c;
        out += markdown[i + 1];
      }
      i += 2;
      continue;
    }
    if (c == u'`') {
      const qsizetype run = backtickRun(markdown, i);
      const qsizetype end = closingRun(markdown, i + run, run);
      if (end >= 0) {
        out += QStringView(markdown).mid(i, end - i);  // a code span: shown literally, nothing to escape
        i = end;
      } else {
        out += QStringView(markdown).mid(i, run);
        i += run;
      }
      continue;
    }
    if (c == u'<') {
      out += QStringLiteral("&lt;");
    } else if (c == u'!' && i + 1 < markdown.size() && markdown[i + 1] == u'[') {
      out += QStringLiteral("\\!");
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

}  // namespace trit::ui
