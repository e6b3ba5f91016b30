#pragma once
// A reply's code block as QML shows it: CodeDocument puts the block's text into a TextEdit's document
// and colours it (code_highlighter.h) through a QSyntaxHighlighter. While the block streams, its text
// only grows at the end; CodeDocument then edits the document at the end only, so the highlighter
// colours the new lines and not the block again: a frame's work does not grow with the block.
//
//   TextEdit { id: edit; textFormat: TextEdit.PlainText }
//   CodeDocument { document: edit.textDocument; text: code; language: "python"; colors: {...} }
#include <QtQml/qqmlregistration.h>
#include <QColor>
#include <QObject>
#include <QPointer>
#include <QQuickTextDocument>
#include <QVariantMap>

namespace trit::ui {

class CodeBlockHighlighter;

class CodeDocument : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QQuickTextDocument* document READ document WRITE setDocument NOTIFY documentChanged)
  Q_PROPERTY(QString text READ text WRITE setText NOTIFY textChanged)
  Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
  // The fence's language as a name ("Python", "C++"); empty when it is not one Trit colours.
  Q_PROPERTY(QString languageLabel READ languageLabel NOTIFY languageChanged)
  // Token colours by kind: keyword, type, function, string, number, comment, meta, added, removed.
  Q_PROPERTY(QVariantMap colors READ colors WRITE setColors NOTIFY colorsChanged)
  // How many lines the highlighter has coloured since the document was set (tests read it: appending
  // a line to a long block must colour a line or two, not the block).
  Q_PROPERTY(int highlightedLines READ highlightedLines NOTIFY textChanged)

 public:
  explicit CodeDocument(QObject* parent = nullptr);
  ~CodeDocument() override;

  QQuickTextDocument* document() const { return document_; }
  void setDocument(QQuickTextDocument* document);
  QString text() const { return text_; }
  void setText(const QString& text);
  QString language() const { return language_; }
  void setLanguage(const QString& language);
  QString languageLabel() const;
  QVariantMap colors() const { return colors_; }
  void setColors(const QVariantMap& colors);
  int highlightedLines() const;
  // The colour the highlighter gave the character at `position` of the text (invalid: uncoloured).
  Q_INVOKABLE QColor colorAt(int position) const;

 signals:
  void documentChanged();
  void textChanged();
  void languageChanged();
  void colorsChanged();

 private:
  void apply();  // brings the document's text to text_, editing only from the first difference

  QPointer<QQuickTextDocument> document_;
  CodeBlockHighlighter* highlighter_ = nullptr;  // owned by the QTextDocument's QObject tree
  QString text_;
  QString shown_;  // what the document holds
  QString language_;
  QVariantMap colors_;
};

}  // namespace trit::ui
