#pragma once
// Splits a Markdown reply into blocks as it streams in: prose blocks (rendered as Markdown) and fenced
// code blocks (shown in a monospace font with a copy button). Appending text only ever changes the
// last block and adds new ones, so while a reply streams the renderer re-parses one bounded block per
// frame instead of the whole reply: the cost of a frame does not grow with the length of the reply.
#include <QList>
#include <QString>
#include <QStringView>

namespace trit::ui {

struct MarkdownSegment {
  enum class Kind { Prose, Code };
  Kind kind = Kind::Prose;
  QString text;      // prose: Markdown source; code: the code, without fences or final newline
  QString language;  // code only: the first word of the fence's info string ("python"), may be empty
  bool operator==(const MarkdownSegment&) const = default;
};

class MarkdownSegmenter {
 public:
  // A prose block is closed at a blank line once it holds this many characters (unless the next line
  // continues a list or quote), and at any blank line once it holds kHardSplit characters.
  static constexpr qsizetype kSoftSplit = 600;
  static constexpr qsizetype kHardSplit = 3000;

  // Appends streamed text. Returns the index of the first segment whose content may have changed;
  // every segment before it is exactly as it was (segments() may also have grown or, rarely, shrunk by
  // one at the end when an unfinished line turns out to open a code block).
  qsizetype append(QStringView text);
  // The text is complete: an unfinished last line is classified as a line (a closing fence then closes
  // its block instead of showing as code). Returns the first index that may have changed.
  qsizetype finish();
  void clear();

  // The reply so far: complete lines as classified, with the unfinished last line shown where it
  // would go if it ended now.
  const QList<MarkdownSegment>& segments() const { return display_; }

  // Convenience: the segments of a finished text.
  static QList<MarkdownSegment> split(QStringView text);

 private:
  void addLine(QStringView line);  // a complete line without its newline
  void addProseLine(QStringView line);
  bool startsSegment(const QList<MarkdownSegment>& segments, QStringView line) const;
  void rebuildDisplay();

  QList<MarkdownSegment> committed_;  // complete lines only
  QList<MarkdownSegment> display_;    // committed_ plus the unfinished line
  QString partial_;                   // text after the last newline
  bool inCode_ = false;
  QChar fenceChar_;
  qsizetype fenceLength_ = 0;
  qsizetype codeLines_ = 0;
  bool afterBlank_ = false;  // prose: the last complete line was blank
};

}  // namespace trit::ui
