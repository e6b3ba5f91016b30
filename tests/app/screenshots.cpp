// trit_screenshots: renders the README's screenshots of the real window (Main.qml on the real bridges),
// one theme and size per run, into OUT_DIR as SCENE-THEME-WxH.png:
//   first-run  a fresh install: the welcome with the GPU found and the recommended model;
//   chat       a seeded conversation with a long Markdown reply with code (a tiny synthetic model is
//              loaded so the header and status bar are real; the reply itself is seeded, not generated);
//   search     the sidebar's search results for "GPU";
//   models     the model manager page while a catalogue model downloads from a local HTTP server
//              (a throttled synthetic file of 64 MiB: speed and time left are real);
//   settings   the settings dialog.
// Everything lives in a temporary data folder; nothing of the user's is read or written.
// Usage: trit_screenshots OUT_DIR light|dark WIDTH HEIGHT   (scripts/screenshots.sh runs it)
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <cstdio>
#include <functional>

#include "app_services.h"
#include "chat/chat_controller.h"
#include "conversations/conversations_bridge.h"
#include "download_test_support.h"
#include "engine_thread/engine_bridge.h"
#include "http_test_server.h"
#include "main_window.h"
#include "models/model_manager_bridge.h"
#include "settings/app_settings.h"
#include "storage/conversation_store.h"
#include "storage/reply_writer.h"

using namespace trit;

namespace {

bool waitFor(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  return true;
}

void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
}

const char* const kReply =
    R"(A ternary weight takes one of three values, **-1, 0 or +1**, so a matrix-vector product needs no multiplications at all: each weight either adds the activation, subtracts it, or skips it. That is why BitNet b1.58 runs well on a GPU's integer and add units.

### How the weights are packed

Five ternary digits fit in one byte (3^5 = 243 ≤ 256), which is where the 1.58 bits per weight come from. Trit's kernels unpack them on the fly:

```python
def unpack(byte: int) -> list[int]:
    """Five trits from one byte, least significant first."""
    trits = []
    for _ in range(5):
        trits.append(byte % 3 - 1)   # 0, 1, 2 -> -1, 0, +1
        byte //= 3
    return trits

assert unpack(0) == [-1, -1, -1, -1, -1]
```

And the inner loop of a dot product, in C++:

```cpp
float dot(const int8_t* w, const float* x, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (w[i] > 0) sum += x[i];        // +1
    else if (w[i] < 0) sum -= x[i];   // -1
  }
  return sum * scale;                 // one scale per tensor
}
```

### What it means in practice

- **Memory**: the 2B4T model's weights take about 1.2 GB instead of 4.8 GB in fp16.
- **Speed**: decoding is bound by memory bandwidth, so fewer bytes per weight means more tokens per second.
- **Quality**: the model is *trained* ternary, not quantised afterwards, so it keeps its accuracy.

| format | bits per weight | used by |
|---|---|---|
| I2_S | 2 | BitNet b1.58 2B4T |
| TQ1_0 | 1.69 | llama.cpp |
| TQ2_0 | 2.06 | llama.cpp |

In short: ternary models trade a little training effort for a large saving at inference time.)";

struct Seeded {
  qint64 chat = 0;  // the conversation shown in the chat scene
};

Seeded seed(storage::ConversationStore& store) {
  using storage::Role;
  auto exchange = [&store](const QString& title, const QString& question, const QString& answer,
                           const storage::ReplyStats& stats) {
    const auto c = store.createConversation(title);
    const auto q = store.addMessage(c, 0, Role::User, question);
    storage::ReplyWriter writer(store);
    writer.begin(c, q);
    writer.append(answer);
    writer.finish(stats, storage::FinishReason::Stop);
    return c;
  };
  exchange(QStringLiteral("Plan a weekend in Porto"), QStringLiteral("Plan a weekend in Porto for two."),
           QStringLiteral("Day one: Ribeira and the Dom Luís I bridge at sunset..."), {38, 412, 30500, 1010, 16});
  exchange(QStringLiteral("Which GPU do I need?"), QStringLiteral("Which GPU do I need for a 10B ternary model?"),
           QStringLiteral("About 3.5 GB of GPU memory for the weights, plus the KV cache: any 6 GB GPU will do."),
           {41, 96, 31200, 1040, 15});
  exchange(QStringLiteral("Regex for ISO dates"), QStringLiteral("A regex for ISO 8601 dates?"),
           QStringLiteral("`^\\d{4}-\\d{2}-\\d{2}$` matches the calendar form; the GPU is not involved."),
           {22, 64, 29800, 1065, 14});
  Seeded s;
  s.chat = exchange(QStringLiteral("How do ternary weights work?"),
                    QStringLiteral("How do ternary weights work, and why are they fast on a GPU?"),
                    QString::fromUtf8(kReply), {472, 598, 35100, 1052, 15});
  return s;
}

// The built-in catalogue, with one model served by `server` (the download scene's).
QString writeCatalog(const QString& dir, const test::HttpTestServer& server, const QByteArray& body,
                     QString* servedId) {
  QFile builtIn(QStringLiteral(":/trit/catalog.json"));
  if (!builtIn.open(QIODevice::ReadOnly)) return {};
  QJsonObject root = QJsonDocument::fromJson(builtIn.readAll()).object();
  QJsonArray models = root.value(QStringLiteral("models")).toArray();
  QJsonObject served = models.at(1).toObject();
  served.insert(QStringLiteral("url"), server.url(QStringLiteral("/model.gguf")).toString());
  served.insert(QStringLiteral("size"), double(body.size()));
  served.insert(QStringLiteral("sha256"), test::sha256Hex(body));
  *servedId = served.value(QStringLiteral("id")).toString();
  models.replace(1, served);
  root.insert(QStringLiteral("models"), models);
  const QString path = QDir(dir).filePath(QStringLiteral("catalog.json"));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QJsonDocument(root).toJson());
  return path;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: trit_screenshots OUT_DIR light|dark WIDTH HEIGHT\n");
    return 2;
  }
  QTemporaryDir home;
  if (!home.isValid()) return 1;
  // Everything of this run in the temporary folder: data, settings, models.
  qputenv("TRIT_DATA_DIR", QFile::encodeName(home.filePath(QStringLiteral("data"))));
  QGuiApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("TritScreenshots"));
  QCoreApplication::setApplicationName(QStringLiteral("trit_screenshots"));
  const QString out = QString::fromLocal8Bit(argv[1]);
  const QString theme = QString::fromLocal8Bit(argv[2]);
  const int width = QByteArray(argv[3]).toInt(), height = QByteArray(argv[4]).toInt();
  QDir().mkpath(out);
  auto fail = [](const char* what) {
    std::fprintf(stderr, "trit_screenshots: %s\n", what);
    return 1;
  };

  test::HttpTestServer server;
  if (!server.listen()) return fail("cannot start the local HTTP server");
  QByteArray body(64 << 20, Qt::Uninitialized);
  QRandomGenerator(29).fillRange(reinterpret_cast<quint32*>(body.data()), body.size() / 4);
  test::HttpTestServer::Route route;
  route.body = body;
  route.chunkDelayMs = 20;  // about 3 MiB/s
  server.setRoute(QStringLiteral("/model.gguf"), route);
  QString servedId;
  const QString catalog = writeCatalog(home.path(), server, body, &servedId);
  if (catalog.isEmpty()) return fail("cannot write the catalogue");

  chat::AppSettings settings(home.filePath(QStringLiteral("settings.ini")));
  chat::EngineBridge engine(&settings);
  chat::ChatController chat(&engine, &settings);
  chat::ConversationsBridge conversations;
  QObject::connect(&conversations, &chat::ConversationsBridge::storeChanged, &chat, &chat::ChatController::setStore);
  if (!conversations.open() || !conversations.store()) return fail("cannot open the conversations");
  const QString modelsDir = home.filePath(QStringLiteral("models"));
  models::ModelManagerBridge models(catalog, modelsDir);
  models.load();
  if (!waitFor([&] { return models.isReady(); }, 10000)) return fail("the model manager did not load");
  models.selectGpu(-1, 0);

  QQmlApplicationEngine qml;
  app::AppServices::of(qml)->setModels(&models);
  qml.setInitialProperties(
      {{QStringLiteral("chat"), QVariant::fromValue(static_cast<QObject*>(&chat))},
       {QStringLiteral("engine"), QVariant::fromValue(static_cast<QObject*>(&engine))},
       {QStringLiteral("settings"), QVariant::fromValue(static_cast<QObject*>(&settings))},
       {QStringLiteral("conversations"), QVariant::fromValue(static_cast<QObject*>(&conversations))},
       {QStringLiteral("themeOverride"), theme},
       {QStringLiteral("width"), width},
       {QStringLiteral("height"), height}});
  QString error;
  QQuickWindow* window = app::loadMainWindow(qml, &error);
  if (!window) return fail(qPrintable(error));
  engine.refreshDevices();
  auto find = [window](const char* name) { return window->findChild<QObject*>(QLatin1String(name)); };
  auto shot = [&](const QString& scene) {
    settle(400);  // animations end, text lays out
    const QString path = QDir(out).filePath(QStringLiteral("%1-%2-%3x%4.png").arg(scene, theme).arg(width).arg(height));
    const QImage image = window->grabWindow();
    if (image.isNull() || !image.save(path)) return false;
    std::printf("screenshot: %s\n", qPrintable(path));
    return true;
  };

  // 1. The first start: nothing on disk, the GPU asked.
  if (!waitFor([&] { return !models.gpuSummary().isEmpty(); }, 20000)) return fail("no GPU answer");
  if (!shot(QStringLiteral("first-run"))) return fail("cannot save the first-run screenshot");

  // 2. Conversations saved, a model on disk and loaded, the long one open.
  const Seeded seeded = seed(*conversations.store());
  const QByteArray tiny = test::syntheticModel(3);
  {
    QFile f(QDir(modelsDir).filePath(QStringLiteral("trit-tiny-synthetic.gguf")));
    if (!f.open(QIODevice::WriteOnly)) return fail("cannot write the tiny model");
    f.write(tiny);
  }
  models.rescan();
  if (!waitFor([&] { return models.installedCount() == 1; }, 10000)) return fail("the tiny model was not found");
  engine.loadModel(models.pathOf(QStringLiteral("trit-tiny-synthetic.gguf")));
  if (!waitFor([&] { return engine.state() == chat::EngineBridge::State::Ready; }, 60000))
    return fail("the tiny model did not load");
  if (!chat.loadConversation(seeded.chat)) return fail("cannot open the seeded conversation");
  if (!shot(QStringLiteral("chat"))) return fail("cannot save the chat screenshot");

  // 3. Search results.
  QObject* search = find("searchField");
  if (!search) return fail("no search field");
  search->setProperty("text", QStringLiteral("GPU"));
  settle(300);
  if (!shot(QStringLiteral("search"))) return fail("cannot save the search screenshot");
  search->setProperty("text", QString());

  // 4. The model manager while a model downloads.
  QMetaObject::invokeMethod(window, "openModelManager");
  if (!models.download(servedId)) return fail("the download did not start");
  const int row = models.model()->indexOf(servedId);
  auto rowMap = [&] {
    return models.model()->data(models.model()->index(row), models::ModelListModel::ModelDataRole).toMap();
  };
  if (!waitFor([&] { return !rowMap().value(QStringLiteral("timeLeftText")).toString().isEmpty(); }, 20000))
    return fail("the download shows no time left");
  settle(1500);  // a steady speed
  QObject* page = find("modelManagerPage");
  QVariant shown;
  if (!page || !QMetaObject::invokeMethod(page, "reveal", Q_RETURN_ARG(QVariant, shown), Q_ARG(QVariant, servedId)) ||
      !shown.toBool())
    return fail("cannot show the downloading card");
  if (!shot(QStringLiteral("models"))) return fail("cannot save the models screenshot");
  models.cancel(servedId);
  QMetaObject::invokeMethod(window, "closeModelManager");

  // 5. Settings.
  QObject* settingsDialog = find("settingsDialog");
  if (!settingsDialog || !QMetaObject::invokeMethod(settingsDialog, "open")) return fail("no settings dialog");
  if (!waitFor([&] { return settingsDialog->property("opened").toBool(); }, 5000)) return fail("settings did not open");
  settle(800);  // the window behind dims
  if (!shot(QStringLiteral("settings"))) return fail("cannot save the settings screenshot");
  return 0;
}
