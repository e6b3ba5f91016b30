#include "ui/markdown_segmenter.h"

#include <algorithm>

namespace trit::ui {
namespace {

bool isBlank(QStringView line) {
  return std::all_of(line.begin(), line.end(), [](QChar c) { return c.isSpace(); });
}

// Leading spaces (CommonMark allows up to three before a fence).
qsizetype indentOf(QStringView line) {
  qsizetype n = 0;
  while (n < line.size() && line[n] == u' ') ++n;
  return n;
}

struct Fence {
  QChar ch;
  qsizetype length = 0;
  QString info;
};

// A line that opens a fenced code block: up to 3 spaces, then 3+ backticks or tildes; a backtick
// fence's info string may not contain a backtick.
bool parseFence(QStringView line, Fence* fence) {
  const qsizetype indent = indentOf(line);
  if (indent > 3 || indent >= line.size()) return false;
  const QChar ch = line[indent];
  if (ch != u'`' && ch != u'~') return false;
  qsizetype n = 0;
  while (indent + n < line.size() && line[indent + n] == ch) ++n;
  if (n < 3) return false;
  const QStringView info = line.mid(indent + n).trimmed();
  if (ch == u'`' && info.contains(u'`')) return false;
  fence->ch = ch;
  fence->length = n;
  fence->info = info.toString();
  return true;
}

// A line that closes the open fence: up to 3 spaces, at least as many of the same character, then
// only spaces.
bool closesFence(QStringView line, QChar ch, qsizetype length) {
  const qsizetype indent = indentOf(line);
  if (indent > 3) return false;
  qsizetype n = 0;
  while (indent + n < line.size() && line[indent + n] == ch) ++n;
  return n >= length && isBlank(line.mid(indent + n));
}

// Lines that continue the block before a blank line: list items, indented continuations, quotes.
// Splitting there would restart a numbered list or break a quote in two.
bool continuesBlock(QStringView line) {
  if (line.isEmpty()) return false;
  if (line[0] == u' ' || line[0] == u'\t' || line[0] == u'>') return true;
  if (line.size() >= 2 && (line[0] == u'-' || line[0] == u'*' || line[0] == u'+') && line[1] == u' ') return true;
  qsizetype d = 0;
  while (d < line.size() && line[d].isDigit()) ++d;
  return d > 0 && d + 1 < line.size() && (line[d] == u'.' || line[d] == u')') && line[d + 1] == u' ';
}

}  // namespace

void MarkdownSegmenter::clear() {
  committed_.clear();
  display_.clear();
  partial_.clear();
  inCode_ = false;
  fenceLength_ = 0;
  afterBlank_ = false;
}

qsizetype MarkdownSegmenter::append(QStringView text) {
  // Only the last segment shown before this call can change: earlier ones are closed for good.
  const qsizetype firstDirty = std::max<qsizetype>(0, display_.size() - 1);
  qsizetype start = 0;
  for (qsizetype i = 0; i < text.size(); ++i) {
    if (text[i] != u'\n') continue;
    if (partial_.isEmpty()) {
      addLine(text.mid(start, i - start));
    } else {
      partial_ += text.mid(start, i - start);
      addLine(partial_);
      partial_.clear();
    }
    start = i + 1;
  }
  partial_ += text.mid(start);
  rebuildDisplay();
  return firstDirty;
}

qsizetype MarkdownSegmenter::finish() {
  const qsizetype firstDirty = std::max<qsizetype>(0, display_.size() - 1);
  if (partial_.isEmpty()) return firstDirty;
  const QString last = partial_;
  partial_.clear();
  addLine(last);
  rebuildDisplay();
  return firstDirty;
}

void MarkdownSegmenter::addLine(QStringView rawLine) {
  QStringView line = rawLine;
  if (line.endsWith(u'\r')) line.chop(1);
  if (inCode_) {
    if (closesFence(line, fenceChar_, fenceLength_)) {
      inCode_ = false;
      afterBlank_ = false;
      return;
    }
    auto& code = committed_.last().text;
    if (codeLines_ > 0) code += u'\n';
    code += line;
    ++codeLines_;
    return;
  }
  Fence fence;
  if (parseFence(line, &fence)) {
    // Prose that is only whitespace before a code block is dropped rather than kept as an empty block.
    if (!committed_.isEmpty() && committed_.last().kind == MarkdownSegment::Kind::Prose &&
        isBlank(committed_.last().text))
      committed_.removeLast();
    MarkdownSegment code;
    code.kind = MarkdownSegment::Kind::Code;
    code.language = fence.info.section(u' ', 0, 0);
    committed_.append(code);
    inCode_ = true;
    codeLines_ = 0;
    fenceChar_ = fence.ch;
    fenceLength_ = fence.length;
    return;
  }
  addProseLine(line);
}

// Whether a non-blank prose line starts a new segment rather than continuing the last one.
bool MarkdownSegmenter::startsSegment(const QList<MarkdownSegment>& segments, QStringView line) const {
  if (segments.isEmpty() || segments.last().kind != MarkdownSegment::Kind::Prose) return true;
  if (!afterBlank_) return false;
  const qsizetype size = segments.last().text.size();
  return size >= kHardSplit || (size >= kSoftSplit && !continuesBlock(line));
}

void MarkdownSegmenter::addProseLine(QStringView line) {
  if (isBlank(line)) {
    // A blank line right after a code block (or at the start) separates nothing: it is not kept.
    if (!committed_.isEmpty() && committed_.last().kind == MarkdownSegment::Kind::Prose)
      committed_.last().text += u'\n';
    afterBlank_ = true;
    return;
  }
  if (startsSegment(committed_, line)) {
    committed_.append(MarkdownSegment{});
    committed_.last().text = line.toString();
  } else {
    auto& text = committed_.last().text;
    if (!text.isEmpty()) text += u'\n';
    text += line;
  }
  afterBlank_ = false;
}

void MarkdownSegmenter::rebuildDisplay() {
  // Copying committed_ is cheap (implicitly shared strings); only the last segment is rebuilt.
  display_ = committed_;
  if (partial_.isEmpty()) return;
  if (inCode_) {
    auto& code = display_.last().text;
    if (codeLines_ > 0) code += u'\n';
    code += partial_;
    return;
  }
  if (isBlank(partial_)) return;
  // The unfinished line goes exactly where addProseLine() will put it, so nothing jumps when it ends
  // (except a line that turns out to open a code block).
  if (startsSegment(display_, partial_)) {
    MarkdownSegment prose;
    prose.text = partial_;
    display_.append(prose);
  } else {
    auto& text = display_.last().text;
    if (!text.isEmpty()) text += u'\n';
    text += partial_;
  }
}

QList<MarkdownSegment> MarkdownSegmenter::split(QStringView text) {
  MarkdownSegmenter s;
  s.append(text);
  s.finish();
  return s.segments();
}

}  // namespace trit::ui
