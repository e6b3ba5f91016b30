#include "chat_app.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QLocale>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTimer>
#include <QTranslator>
#include <cstdio>

#include "chat/chat_controller.h"
#include "conversations/conversations_bridge.h"
#include "engine_thread/engine_bridge.h"
#include "server/api_server.h"
#include "settings/app_settings.h"
#include "storage/app_folders.h"
#include "storage/conversation_store.h"
#include "ui/offline_network.h"
#include "ui/single_instance.h"

namespace trit::chat {
namespace {

constexpr int kCheckTimeoutMs = 180'000;

const QCommandLineOption kModel(QStringLiteral("model"), QStringLiteral("Open the model file PATH."),
                                QStringLiteral("PATH"));
const QCommandLineOption kBackend(QStringLiteral("backend"),
                                  QStringLiteral("Run the model on \"vulkan\" or \"cpu\" (this run only)."),
                                  QStringLiteral("NAME"));
const QCommandLineOption kDevice(QStringLiteral("device"), QStringLiteral("Vulkan device index (this run only)."),
                                 QStringLiteral("INDEX"));
const QCommandLineOption kSettings(QStringLiteral("settings"),
                                   QStringLiteral("Keep settings in the INI file FILE instead of the user's."),
                                   QStringLiteral("FILE"));
const QCommandLineOption kSend(QStringLiteral("send"), QStringLiteral("Send TEXT once the model is loaded."),
                               QStringLiteral("TEXT"));
const QCommandLineOption kCheckReply(QStringLiteral("check-reply"),
                                     QStringLiteral("Wait for the reply to --send, report it with its statistics "
                                                    "and exit (used by tests)."));
const QCommandLineOption kMaxTokens(QStringLiteral("max-tokens"),
                                    QStringLiteral("Longest reply in tokens (this run only)."), QStringLiteral("N"));
const QCommandLineOption kTheme(QStringLiteral("theme"),
                                QStringLiteral("Use the \"light\" or \"dark\" theme (this run only)."),
                                QStringLiteral("NAME"));
const QCommandLineOption kScreenshot(QStringLiteral("screenshot"),
                                     QStringLiteral("Save the window to FILE (after the reply to --send, if any) "
                                                    "and exit."),
                                     QStringLiteral("FILE"));

}  // namespace

ChatApp::ChatApp(QObject* parent) : QObject(parent) {}

ChatApp::~ChatApp() {
  // The API server runs its requests on the engine, and the controller talks to the engine bridge and
  // writes to the store: they go first.
  delete apiServer_;
  delete chat_;
  delete conversations_;
  delete engine_;
}

QList<QCommandLineOption> ChatApp::options() {
  return {kModel, kBackend, kDevice, kSettings, kSend, kCheckReply, kMaxTokens, kTheme, kScreenshot};
}

void ChatApp::installTranslator() {
  // Embedded by translations/translations.cmake; no file for the locale simply means English.
  auto* translator = new QTranslator(this);
  if (translator->load(QLocale(), QStringLiteral("trit"), QStringLiteral("_"), QStringLiteral(":/i18n")))
    QCoreApplication::installTranslator(translator);
  else
    delete translator;
}

bool ChatApp::configure(const QCommandLineParser& parser, QString* error) {
  installTranslator();
  // Before the settings and the data are opened: an earlier version's folders move here once (in the
  // user's language, so after the translator); the window shows what happened.
  dataNotice_ = storage::moveLegacyFoldersOnce();
  if (!dataNotice_.isEmpty()) std::fprintf(stderr, "trit: %s\n", qPrintable(dataNotice_));
  settings_ = new AppSettings(parser.value(kSettings), this);
  modelPath_ = parser.value(kModel);
  send_ = parser.value(kSend);
  checkReply_ = parser.isSet(kCheckReply);
  screenshot_ = parser.value(kScreenshot);
  theme_ = parser.value(kTheme);
  if (parser.isSet(kBackend) && parser.value(kBackend) != QLatin1String("cpu") &&
      parser.value(kBackend) != QLatin1String("vulkan")) {
    *error = QStringLiteral("--backend must be \"vulkan\" or \"cpu\", not \"%1\"").arg(parser.value(kBackend));
    return false;
  }
  if (!theme_.isEmpty() && theme_ != QLatin1String("light") && theme_ != QLatin1String("dark")) {
    *error = QStringLiteral("--theme must be \"light\" or \"dark\", not \"%1\"").arg(theme_);
    return false;
  }
  if (checkReply_ && (modelPath_.isEmpty() || send_.isEmpty())) {
    *error = QStringLiteral("--check-reply needs --model PATH and --send TEXT");
    return false;
  }
  engine_ = new EngineBridge(settings_);
  chat_ = new ChatController(engine_, settings_);
  apiServer_ = new api::ApiServer(engine_, settings_);
  // Conversations are saved in the data folder (--data-dir / TRIT_DATA_DIR); if the database cannot be
  // opened the chat still works, in memory, and the window says why.
  conversations_ = new ConversationsBridge;
  connect(conversations_, &ConversationsBridge::storeChanged, chat_, &ChatController::setStore);
  if (!conversations_->open()) std::fprintf(stderr, "trit: %s\n", qPrintable(conversations_->problem()));
  if (parser.isSet(kMaxTokens)) {
    bool ok = false;
    const int n = parser.value(kMaxTokens).toInt(&ok);
    if (!ok || n < 1) {
      *error = QStringLiteral("--max-tokens must be a positive whole number, not \"%1\"").arg(parser.value(kMaxTokens));
      return false;
    }
    chat_->setMaxTokensOverride(n);
  }
  LoadRequest request;
  request.path = modelPath_;
  request.backend = parser.isSet(kBackend) ? parser.value(kBackend) : settings_->backend();
  request.context = settings_->contextLength();
  request.device = settings_->device();
  if (parser.isSet(kDevice)) {
    bool ok = false;
    request.device = parser.value(kDevice).toInt(&ok);
    if (!ok || request.device < -1) {
      *error = QStringLiteral("--device must be a device index (see trit-cli devices), not \"%1\"")
                   .arg(parser.value(kDevice));
      return false;
    }
  }
  startRequest_ = request;
  return true;
}

bool ChatApp::claimSingleInstance(bool skip) {
  if (skip || checking()) return true;
  instance_ = new ui::SingleInstance(ui::SingleInstance::defaultKey(), this);
  if (!instance_->claim()) return false;
  connect(instance_, &ui::SingleInstance::raiseRequested, this, [this] {
    if (!window_) return;
    window_->show();
    window_->raise();
    window_->requestActivate();
  });
  return true;
}

void ChatApp::install(QQmlApplicationEngine& engine) {
  static ui::OfflineNetworkFactory offline;  // must outlive every engine that uses it
  engine.setNetworkAccessManagerFactory(&offline);
  QVariantMap props{{QStringLiteral("chat"), QVariant::fromValue(static_cast<QObject*>(chat_))},
                    {QStringLiteral("engine"), QVariant::fromValue(static_cast<QObject*>(engine_))},
                    {QStringLiteral("settings"), QVariant::fromValue(static_cast<QObject*>(settings_))},
                    {QStringLiteral("conversations"), QVariant::fromValue(static_cast<QObject*>(conversations_))},
                    {QStringLiteral("apiServer"), QVariant::fromValue(static_cast<QObject*>(apiServer_))}};
  if (!theme_.isEmpty()) props.insert(QStringLiteral("themeOverride"), theme_);
  if (!dataNotice_.isEmpty()) props.insert(QStringLiteral("dataNotice"), dataNotice_);
  engine.setInitialProperties(props);
}

void ChatApp::attach(QQuickWindow* window) {
  window_ = window;
  engine_->refreshDevices();
  if (!startRequest_.path.isEmpty()) {
    engine_->load(startRequest_);
  } else if (!checking() && !settings_->lastModel().isEmpty() && QFileInfo::exists(settings_->lastModel())) {
    engine_->loadModel(settings_->lastModel());  // reopen what was open last time
  }
  if (!send_.isEmpty()) {
    auto sendOnce = std::make_shared<QMetaObject::Connection>();
    *sendOnce = connect(engine_, &EngineBridge::stateChanged, this, [this, sendOnce] {
      if (engine_->state() != EngineBridge::State::Ready) return;
      disconnect(*sendOnce);
      chat_->send(send_);
    });
  }
  // Self-checks run beside the user's app: they leave its port alone.
  if (!checking()) apiServer_->followSettings();
  if (checking()) runCheckReply();
}

void ChatApp::runCheckReply() {
  QTimer::singleShot(kCheckTimeoutMs, this, [] {
    std::fprintf(stderr, "trit: no reply within %d s\n", kCheckTimeoutMs / 1000);
    QCoreApplication::exit(1);
  });
  connect(engine_, &EngineBridge::modelLoadFailed, this, [](const QString& path, const QString& message) {
    std::fprintf(stderr, "trit: cannot load %s: %s\n", qPrintable(path), qPrintable(message));
    QCoreApplication::exit(1);
  });
  // Frames in which the reply grew: the text must arrive in pieces, not all at once at the end.
  connect(chat_->messages(), &QAbstractItemModel::dataChanged, this,
          [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
            if (chat_->generating() && roles.contains(MessageListModel::TextRole)) ++streamedFrames_;
          });
  if (send_.isEmpty()) {  // a screenshot of the window as it opens
    connect(
        window_, &QQuickWindow::frameSwapped, this, [this] { saveScreenshotAndExit(0); }, Qt::SingleShotConnection);
    return;
  }
  connect(chat_, &ChatController::replyFinished, this, [this](int row) {
    const auto m = chat_->messages()->get(row);
    const auto stats = m.value(QStringLiteral("stats")).toMap();
    const QString reason = m.value(QStringLiteral("finishReason")).toString();
    const int generated = stats.value(QStringLiteral("generatedTokens")).toInt();
    std::printf(
        "reply: %d characters in %d frames; prompt %d tokens at %.1f t/s; %d tokens generated at %.1f t/s; "
        "TTFT %.1f ms; finish %s\n",
        int(m.value(QStringLiteral("text")).toString().size()), streamedFrames_,
        stats.value(QStringLiteral("promptTokens")).toInt(),
        stats.value(QStringLiteral("promptTokensPerSecond")).toDouble(), generated,
        stats.value(QStringLiteral("generationTokensPerSecond")).toDouble(),
        stats.value(QStringLiteral("ttftMs")).toDouble(), qPrintable(reason));
    // A streamed reply: text that arrived over at least one frame, with its statistics.
    const bool streamed = !m.value(QStringLiteral("text")).toString().isEmpty() && streamedFrames_ > 0;
    bool ok = (reason == QLatin1String("stop") || reason == QLatin1String("length")) && generated > 0 && streamed;
    if (!ok)
      std::fprintf(stderr, "trit: the reply failed: %s %s\n", qPrintable(reason), qPrintable(chat_->lastError()));
    // The chat view must show both messages (what QML rendered, not only what the model holds).
    QQuickItem* list = nullptr;
    if (window_) {
      list = window_->findChild<QQuickItem*>(QStringLiteral("messageList"));
      if (!list) list = window_->contentItem()->findChild<QQuickItem*>(QStringLiteral("messageList"));
    }
    const int shown = list ? list->property("count").toInt() : -1;
    std::printf("view shows %d messages\n", shown);
    ok = ok && shown == chat_->messages()->count();
    ok = checkSavedReply(row) && ok;
    std::fflush(stdout);
    const int code = ok ? 0 : 1;
    // Let the last text render before a screenshot or exit.
    QTimer::singleShot(300, this, [this, code] { saveScreenshotAndExit(code); });
  });
}

bool ChatApp::checkSavedReply(int row) {
  auto* store = conversations_->store();
  if (!store) {
    std::fprintf(stderr, "trit: the reply was not saved: %s\n", qPrintable(conversations_->problem()));
    return false;
  }
  const auto shown = chat_->messages()->at(row);
  std::optional<storage::Message> saved;
  try {
    if (shown.messageId) saved = store->message(shown.messageId);
  } catch (const storage::StorageError& e) {
    std::fprintf(stderr, "trit: cannot read the saved reply: %s\n", qPrintable(e.message()));
    return false;
  }
  const QString reason = saved && saved->finish ? storage::finishReasonName(*saved->finish) : QString();
  std::printf("saved: conversation %lld, reply %lld, %d characters, %lld tokens, finish %s\n",
              static_cast<long long>(chat_->conversationId()), static_cast<long long>(shown.messageId),
              saved ? int(saved->text.size()) : -1,
              saved && saved->stats ? static_cast<long long>(saved->stats->generatedTokens) : -1LL, qPrintable(reason));
  const bool ok = saved && saved->text == shown.text && saved->stats && !reason.isEmpty() &&
                  saved->stats->generatedTokens == shown.stats.value(QStringLiteral("generatedTokens")).toLongLong();
  if (!ok) std::fprintf(stderr, "trit: the reply in the database differs from the one on screen\n");
  return ok;
}

void ChatApp::saveScreenshotAndExit(int code) {
  if (!screenshot_.isEmpty() && window_) {
    const QImage image = window_->grabWindow();
    QDir().mkpath(QFileInfo(screenshot_).absolutePath());
    if (image.isNull() || !image.save(screenshot_)) {
      std::fprintf(stderr, "trit: cannot save the screenshot to %s\n", qPrintable(screenshot_));
      code = 1;
    } else {
      std::printf("screenshot: %s %dx%d\n", qPrintable(screenshot_), image.width(), image.height());
    }
  }
  std::fflush(stdout);
  QCoreApplication::exit(code);
}

}  // namespace trit::chat
