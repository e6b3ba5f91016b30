// Frame-time benchmark: a 4,000-token Markdown reply (prose, lists, code) streams into the real chat
// view at 2,000 tokens/s from another thread, through the same StreamBuffer and per-frame append the
// chat controller uses. Prints the UI time per frame (from taking the text to the frame on screen) for
// each quarter of the reply: flat numbers mean the cost of a frame does not grow with the reply.
#include <QtQml/qqmlextensionplugin.h>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "chat/message_list_model.h"
#include "chat/stream_buffer.h"

Q_IMPORT_QML_PLUGIN(TritPlugin)

namespace {

// A reply in the shape models write: paragraphs, a list, code blocks. Returned as token-sized pieces.
QStringList replyPieces(int tokens) {
  QStringList words;
  const QStringList prose =
      QStringLiteral(
          "The ternary weights take one of three values, so a matrix product needs only additions and "
          "subtractions, which is why the model runs well on modest hardware. ")
          .split(u' ');
  int i = 0;
  int para = 0;
  while (words.size() < tokens) {
    for (const auto& w : prose) words << w + u' ';
    if (++para % 3 == 0) {
      words << QStringLiteral("\n\n1. **first** point\n") << QStringLiteral("2. second `point`\n\n");
    }
    if (para % 5 == 0) {
      words << QStringLiteral("```cpp\n");
      for (int l = 0; l < 6; ++l)
        words << QStringLiteral("int value") << QString::number(i++) << QStringLiteral(" = ") << QString::number(l)
              << QStringLiteral(";\n");
      words << QStringLiteral("```\n\n");
    } else {
      words << QStringLiteral("\n\n");
    }
  }
  words.resize(tokens);
  return words;
}

}  // namespace

int main(int argc, char* argv[]) {
  QGuiApplication app(argc, argv);
  QCommandLineParser parser;
  QCommandLineOption tokensOpt(QStringLiteral("tokens"), QStringLiteral("Reply length"), QStringLiteral("N"),
                               QStringLiteral("4000"));
  QCommandLineOption rateOpt(QStringLiteral("rate"), QStringLiteral("Tokens per second"), QStringLiteral("N"),
                             QStringLiteral("2000"));
  parser.addOptions({tokensOpt, rateOpt});
  parser.addHelpOption();
  parser.process(app);
  const int tokens = parser.value(tokensOpt).toInt();
  const int rate = parser.value(rateOpt).toInt();

  trit::chat::MessageListModel messages;
  trit::chat::StreamBuffer stream;
  QQmlEngine engine;
  engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
  // A stand-in for the chat controller: the view reads only these members.
  QQmlComponent component(&engine);
  component.setData(R"(
    import QtQuick
    import QtQuick.Controls
    import Trit
    ApplicationWindow {
      id: win
      width: 1000; height: 800; visible: true
      property alias view: chatView
      property QtObject chat: QtObject {
        property var messages: null
        property bool generating: true
        property bool contextFull: false
        property string lastError: ""
        function send(t) {} function stop() {} function regenerate() {}
        function editMessage(r, t) {} function copyText(t) {} function dropOldestTurns() {}
      }
      ChatView { id: chatView; anchors.fill: parent; chat: win.chat; modelReady: true }
    })",
                    QUrl(QStringLiteral("qrc:/bench.qml")));
  QObject* root = component.create();
  if (!root) {
    std::fprintf(stderr, "%s\n", qPrintable(component.errorString()));
    return 1;
  }
  root->property("chat").value<QObject*>()->setProperty("messages",
                                                        QVariant::fromValue(static_cast<QObject*>(&messages)));
  auto* window = qobject_cast<QQuickWindow*>(root);

  messages.append(QStringLiteral("user"), QStringLiteral("Explain ternary weights, with code."));
  const int row = messages.append(QStringLiteral("assistant"), QString(), true);
  const QStringList pieces = replyPieces(tokens);

  std::atomic<int> produced{0};
  stream.begin(1);
  std::thread producer([&] {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < pieces.size(); ++i) {
      const QByteArray utf8 = pieces[i].toUtf8();
      stream.append(1, std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())));
      produced.store(i + 1);
      std::this_thread::sleep_until(start + std::chrono::microseconds(int64_t(1'000'000) * (i + 1) / rate));
    }
  });

  // Per frame: take the text, append it, and time until that frame is on screen.
  std::vector<std::pair<int, double>> frames;  // (tokens so far, ms)
  QElapsedTimer frameStart;
  int consumed = 0;
  bool pending = false;
  QObject::connect(
      window, &QQuickWindow::frameSwapped, window,
      [&] {
        if (pending) frames.emplace_back(consumed, frameStart.nsecsElapsed() / 1e6);
        pending = false;
      },
      Qt::DirectConnection);
  QTimer timer;
  timer.setInterval(16);
  timer.setTimerType(Qt::PreciseTimer);
  QObject::connect(&timer, &QTimer::timeout, [&] {
    frameStart.start();
    const auto chunk = stream.take(1);
    consumed += chunk.pieces;
    if (!chunk.text.isEmpty()) {
      messages.appendText(row, chunk.text);
      pending = true;
    }
    if (consumed >= pieces.size()) {
      timer.stop();
      QTimer::singleShot(200, &app, &QCoreApplication::quit);
    }
  });
  timer.start();
  app.exec();
  producer.join();

  std::printf("streamed %d tokens at %d tokens/s in %zu frames (%s, %s)\n", consumed, rate, frames.size(),
              qPrintable(QGuiApplication::platformName()),
              window->rendererInterface()->graphicsApi() == QSGRendererInterface::Software ? "software renderer"
                                                                                           : "hardware renderer");
  std::printf("%-18s %8s %8s %8s\n", "reply so far", "mean ms", "p95 ms", "max ms");
  for (int q = 0; q < 4; ++q) {
    std::vector<double> ms;
    for (const auto& [n, t] : frames)
      if (n > q * tokens / 4 && n <= (q + 1) * tokens / 4) ms.push_back(t);
    if (ms.empty()) continue;
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double v : ms) sum += v;
    std::printf("tokens %4d-%-4d   %8.2f %8.2f %8.2f\n", q * tokens / 4 + 1, (q + 1) * tokens / 4, sum / ms.size(),
                ms[ms.size() * 95 / 100], ms.back());
  }
  delete root;
  return 0;
}
