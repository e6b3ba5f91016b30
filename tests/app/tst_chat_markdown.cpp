// The streaming Markdown path: blocks split as text arrives (only the last one changes), code fences,
// and the sanitiser that keeps model output from loading any resource.
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

#include "chat/segment_list_model.h"
#include "ui/markdown_sanitizer.h"
#include "ui/markdown_segmenter.h"

using trit::chat::SegmentListModel;
using trit::ui::MarkdownSegment;
using trit::ui::MarkdownSegmenter;
using trit::ui::sanitizeMarkdown;
using Kind = MarkdownSegment::Kind;

class TestChatMarkdown : public QObject {
  Q_OBJECT

 private slots:
  void sanitizerNeutralisesImagesAndHtml() {
    QCOMPARE(sanitizeMarkdown(u"see ![logo](http://evil.example/x.png) here"_qs),
             u"see \\![logo](http://evil.example/x.png) here"_qs);
    QCOMPARE(sanitizeMarkdown(u"<img src=\"http://evil.example/x.png\">"_qs),
             u"&lt;img src=\"http://evil.example/x.png\">"_qs);
    QCOMPARE(sanitizeMarkdown(u"![ref][1]\n\n[1]: http://evil.example/a.png"_qs),
             u"\\![ref][1]\n\n[1]: http://evil.example/a.png"_qs);
    // Already escaped text stays escaped; an escaped "<" cannot come back as a tag.
    QCOMPARE(sanitizeMarkdown(u"\\![not an image]"_qs), u"\\![not an image]"_qs);
    QCOMPARE(sanitizeMarkdown(u"\\<b>"_qs), u"&lt;b>"_qs);
  }

  void sanitizerLeavesCodeSpansAlone() {
    QCOMPARE(sanitizeMarkdown(u"use `a < b` and ``x ` <y>``"_qs), u"use `a < b` and ``x ` <y>``"_qs);
    // An unclosed backtick is literal: what follows is ordinary text and is sanitised.
    QCOMPARE(sanitizeMarkdown(u"a ` <b>"_qs), u"a ` &lt;b>"_qs);
  }

  void rendererFetchesNothing() {
    // What the sanitiser leaves must not contain an image once Qt parses it.
    QTextDocument doc;
    doc.setMarkdown(sanitizeMarkdown(u"![x](http://127.0.0.1:9/a.png) <img src=\"file:///etc/hostname\">"_qs));
    bool image = false;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
      for (auto it = b.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().isImageFormat()) image = true;
    QVERIFY(!image);
    QVERIFY(doc.toPlainText().contains(u"x"_qs));
  }

  void splitsCodeFencesWithLanguage() {
    const auto segs = MarkdownSegmenter::split(u"Intro text.\n\n```python\nprint(1)\n\nx = 2\n```\nAfter."_qs);
    QCOMPARE(segs.size(), 3);
    QCOMPARE(segs[0].kind, Kind::Prose);
    QCOMPARE(segs[0].text.trimmed(), u"Intro text."_qs);
    QCOMPARE(segs[1].kind, Kind::Code);
    QCOMPARE(segs[1].language, u"python"_qs);
    QCOMPARE(segs[1].text, u"print(1)\n\nx = 2"_qs);
    QCOMPARE(segs[2].text, u"After."_qs);
  }

  void tildeFencesAndUnclosedFence() {
    auto segs = MarkdownSegmenter::split(u"~~~~\n```\nnot a close\n~~~~"_qs);
    QCOMPARE(segs.size(), 1);
    QCOMPARE(segs[0].kind, Kind::Code);
    QCOMPARE(segs[0].text, u"```\nnot a close"_qs);
    segs = MarkdownSegmenter::split(u"```js\nlet a = 1;"_qs);  // still streaming: shown as code
    QCOMPARE(segs.size(), 1);
    QCOMPARE(segs[0].language, u"js"_qs);
    QCOMPARE(segs[0].text, u"let a = 1;"_qs);
  }

  // Any way of cutting the text into pieces gives the same blocks as the whole text at once.
  void streamingEqualsWholeText() {
    QString text;
    for (int i = 0; i < 40; ++i) {
      text += QStringLiteral("Paragraph %1 has some words in it, enough to fill a line or two of text.\n\n").arg(i);
      if (i % 7 == 3) text += u"```cpp\nint f() {\n  return 1;\n}\n```\n"_qs;
      if (i % 9 == 5) text += u"1. one\n\n2. two\n\n- a\n- b\n\n"_qs;
    }
    const auto whole = MarkdownSegmenter::split(text);
    for (int step : {1, 2, 3, 7, 64}) {
      MarkdownSegmenter s;
      for (qsizetype i = 0; i < text.size(); i += step) s.append(QStringView(text).mid(i, step));
      s.finish();
      QCOMPARE(s.segments(), whole);
    }
    // Long prose is cut into bounded blocks, so re-rendering the last one stays cheap.
    int prose = 0;
    for (const auto& seg : whole) {
      QVERIFY2(seg.text.size() < MarkdownSegmenter::kHardSplit + 200, qPrintable(seg.text.left(40)));
      if (seg.kind == Kind::Prose) ++prose;
    }
    QVERIFY(prose > 3);
  }

  void onlyTheLastSegmentChanges() {
    MarkdownSegmenter s;
    QString text;
    for (int i = 0; i < 200; ++i) text += QStringLiteral("Sentence number %1 of a long reply.\n\n").arg(i);
    qsizetype previousCount = 0;
    QList<MarkdownSegment> before;
    for (qsizetype i = 0; i < text.size(); i += 5) {
      const qsizetype dirty = s.append(QStringView(text).mid(i, 5));
      QVERIFY(dirty >= std::max<qsizetype>(0, previousCount - 1));
      for (qsizetype k = 0; k < dirty; ++k) QCOMPARE(s.segments()[k], before[k]);
      before = s.segments();
      previousCount = before.size();
    }
  }

  void listsAreNotSplit() {
    QString text = QString(MarkdownSegmenter::kSoftSplit, u'w') + u"\n\n1. first\n\n2. second\n"_qs;
    const auto segs = MarkdownSegmenter::split(text);
    QCOMPARE(segs.size(), 1);  // "1." continues the block although the soft limit was passed
    text = QString(MarkdownSegmenter::kSoftSplit, u'w') + u"\n\nNew paragraph\n"_qs;
    QCOMPARE(MarkdownSegmenter::split(text).size(), 2);
  }

  void segmentModelSignalsOnlyChangedRows() {
    SegmentListModel model;
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.append(u"Hello"_qs);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(inserted.count(), 1);
    model.append(u" world"_qs);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(0).toModelIndex().row(), 0);
    model.append(u"\n```sh\nls <dir>\n"_qs);
    QCOMPARE(model.rowCount(), 2);
    const QModelIndex code = model.index(1);
    QCOMPARE(model.data(code, SegmentListModel::KindRole).toString(), u"code"_qs);
    QCOMPARE(model.data(code, SegmentListModel::SourceRole).toString(), u"ls <dir>"_qs);
    QCOMPARE(model.data(code, SegmentListModel::LanguageRole).toString(), u"sh"_qs);
    // A reply that ends on its closing fence, without a newline: finishing closes the block.
    model.append(u"```"_qs);
    QCOMPARE(model.data(code, SegmentListModel::SourceRole).toString(), u"ls <dir>\n```"_qs);
    model.finish();
    QCOMPARE(model.data(code, SegmentListModel::SourceRole).toString(), u"ls <dir>"_qs);
    const QModelIndex prose = model.index(0);
    model.setText(u"![i](http://x/y.png)"_qs);
    QCOMPARE(model.data(prose, SegmentListModel::MarkdownRole).toString(), u"\\![i](http://x/y.png)"_qs);
  }
};

QTEST_GUILESS_MAIN(TestChatMarkdown)
#include "tst_chat_markdown.moc"
