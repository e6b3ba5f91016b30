#pragma once
// Puts the chat together for main(): settings, the engine bridge, the chat controller, the saved
// conversations (ConversationsBridge) and the local API server, handed to Main.qml as initial properties; the
// command-line options of the chat (open a model, and the self-checks used by the end-to-end test and the screenshot
// script); one instance per user.
#include <QCommandLineOption>
#include <QList>
#include <QObject>
#include <QPointer>
#include <memory>

#include "engine_thread/engine_types.h"

class QCommandLineParser;
class QQmlApplicationEngine;
class QQuickWindow;

namespace trit::ui {
class SingleInstance;
}
namespace trit::api {
class ApiServer;
}

namespace trit::chat {

class AppSettings;
class ChatController;
class ConversationsBridge;
class EngineBridge;

class ChatApp : public QObject {
  Q_OBJECT
 public:
  explicit ChatApp(QObject* parent = nullptr);
  ~ChatApp() override;

  // --model, --backend, --device, --settings, --send, --check-reply, --max-tokens, --theme and
  // --screenshot: the window's options (command_line.h parses them with the rest).
  static QList<QCommandLineOption> options();
  // Reads them. False with `error` set for a bad value (the caller prints it and exits).
  bool configure(const QCommandLineParser& parser, QString* error);

  // True when this process should go on; false when another Trit was running and has been asked to
  // come to the front. Self-checks (or `skip`) run side by side with a running app and do not claim.
  bool claimSingleInstance(bool skip);

  // Before loading Main.qml: the bridges become its initial properties; the QML engine goes offline.
  void install(QQmlApplicationEngine& engine);
  // After: loads the model given on the command line (or the last one) and runs the self-checks.
  void attach(QQuickWindow* window);

  AppSettings* settings() const { return settings_; }
  EngineBridge* engine() const { return engine_; }
  ChatController* chat() const { return chat_; }
  ConversationsBridge* conversations() const { return conversations_; }
  api::ApiServer* apiServer() const { return apiServer_; }

 private:
  void installTranslator();
  void runCheckReply();
  // --check-reply: the reply on screen is the one in the database, finished, with its statistics.
  bool checkSavedReply(int row);
  void saveScreenshotAndExit(int code);
  bool checking() const { return checkReply_ || !screenshot_.isEmpty(); }

  AppSettings* settings_ = nullptr;
  EngineBridge* engine_ = nullptr;
  ChatController* chat_ = nullptr;
  ConversationsBridge* conversations_ = nullptr;
  api::ApiServer* apiServer_ = nullptr;  // the local API server (Settings), on the engine's model
  ui::SingleInstance* instance_ = nullptr;
  QPointer<QQuickWindow> window_;

  LoadRequest startRequest_;
  QString modelPath_;
  QString send_;
  QString screenshot_;
  QString dataNotice_;  // the data folders' move from an earlier version's places, for the window
  QString theme_;
  bool checkReply_ = false;
  int streamedFrames_ = 0;
};

}  // namespace trit::chat
