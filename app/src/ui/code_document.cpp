#include "ui/code_document.h"

#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <array>

#include "ui/code_highlighter.h"

namespace trit::ui {

// Colours each line (a QTextBlock) from the state the previous line ended in; QSyntaxHighlighter
// re-runs only the lines an edit touched and the lines after them whose starting state changed.
class CodeBlockHighlighter : public QSyntaxHighlighter {
 public:
  explicit CodeBlockHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

  void configure(const CodeLanguage* language, const std::array<QColor, kCodeTokenKinds>& colours,
                 bool italicComments) {
    language_ = language;
    for (int k = 0; k < kCodeTokenKinds; ++k) {
      formats_[std::size_t(k)] = QTextCharFormat();
      if (colours[std::size_t(k)].isValid()) formats_[std::size_t(k)].setForeground(colours[std::size_t(k)]);
    }
    formats_[std::size_t(CodeToken::Comment)].setFontItalic(italicComments);
    formats_[std::size_t(CodeToken::Keyword)].setFontWeight(QFont::DemiBold);
    rehighlight();
  }
  int linesColoured() const { return lines_; }
  void resetCount() { lines_ = 0; }

 protected:
  void highlightBlock(const QString& text) override {
    ++lines_;
    if (!language_) return;
    spans_.clear();
    const int state = highlightCodeLine(*language_, text, std::max(0, previousBlockState()), &spans_);
    for (const CodeSpan& span : spans_) setFormat(span.start, span.length, formats_[std::size_t(span.kind)]);
    setCurrentBlockState(state);
  }

 private:
  const CodeLanguage* language_ = nullptr;
  std::array<QTextCharFormat, kCodeTokenKinds> formats_;
  QList<CodeSpan> spans_;
  int lines_ = 0;
};

namespace {
constexpr std::array<const char*, kCodeTokenKinds> kKindNames = {"keyword", "type", "function", "string", "number",
                                                                 "comment", "meta", "added",    "removed"};
}  // namespace

CodeDocument::CodeDocument(QObject* parent) : QObject(parent) {}
CodeDocument::~CodeDocument() = default;

void CodeDocument::setDocument(QQuickTextDocument* document) {
  if (document == document_) return;
  delete highlighter_;
  highlighter_ = nullptr;
  document_ = document;
  shown_.clear();
  if (document_ && document_->textDocument()) {
    document_->textDocument()->setUndoRedoEnabled(false);  // a streamed block is edited every frame
    document_->textDocument()->setPlainText(QString());
    highlighter_ = new CodeBlockHighlighter(document_->textDocument());
    setColors(colors_);  // configures the highlighter
    apply();
  }
  emit documentChanged();
}

void CodeDocument::setText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  apply();
  emit textChanged();
}

void CodeDocument::setLanguage(const QString& language) {
  if (language == language_) return;
  language_ = language;
  setColors(colors_);
  emit languageChanged();
}

QString CodeDocument::languageLabel() const {
  return codeLanguageLabel(codeLanguage(language_));
}

void CodeDocument::setColors(const QVariantMap& colors) {
  const bool changed = colors != colors_;
  colors_ = colors;
  if (highlighter_) {
    std::array<QColor, kCodeTokenKinds> colours;
    for (int k = 0; k < kCodeTokenKinds; ++k)
      colours[std::size_t(k)] = colors_.value(QLatin1String(kKindNames[std::size_t(k)])).value<QColor>();
    highlighter_->configure(codeLanguage(language_), colours, true);
  }
  if (changed) emit colorsChanged();
}

int CodeDocument::highlightedLines() const {
  return highlighter_ ? highlighter_->linesColoured() : 0;
}

QColor CodeDocument::colorAt(int position) const {
  if (!document_ || !document_->textDocument()) return {};
  const QTextBlock block = document_->textDocument()->findBlock(position);
  if (!block.isValid()) return {};
  const int offset = position - block.position();
  for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
    if (offset >= range.start && offset < range.start + range.length &&
        range.format.hasProperty(QTextFormat::ForegroundBrush))
      return range.format.foreground().color();
  }
  return {};
}

void CodeDocument::apply() {
  if (!document_ || !document_->textDocument() || text_ == shown_) return;
  QTextDocument* doc = document_->textDocument();
  // In a plain-text document a position is an index into the text (a line break is one position).
  qsizetype common = 0;
  const qsizetype limit = std::min(text_.size(), shown_.size());
  while (common < limit && text_[common] == shown_[common]) ++common;
  QTextCursor cursor(doc);
  cursor.beginEditBlock();
  cursor.setPosition(int(common));
  cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
  cursor.insertText(text_.mid(common));  // replaces what differed (nothing, when the text only grew)
  cursor.endEditBlock();
  shown_ = text_;
}

}  // namespace trit::ui
