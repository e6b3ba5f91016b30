#pragma once
// The model manager's command-line options, shared by the window (main()) and the headless commands
// (models_cli): --catalog URL_OR_FILE and --models-dir DIR. What they override, and the environment
// variables that come next ($TRIT_CATALOG, $TRIT_MODELS_DIR), is resolved by catalogLocation() and
// ModelsFolder::resolve(), identically in both modes.
#include <QCommandLineOption>
#include <QString>

class QCommandLineParser;

namespace trit::chat {
class AppSettings;
}

namespace trit::models {

class ModelManagerBridge;

QCommandLineOption catalogOption();
QCommandLineOption modelsDirOption();

struct ModelManagerSetup {
  QString catalog;    // as given, "" when not set
  QString modelsDir;  // as given, "" when not set
};

void addModelManagerOptions(QCommandLineParser& parser);
ModelManagerSetup readModelManagerOptions(const QCommandLineParser& parser);

// Keeps the bridge's GPU-fit figures on the device and context length chosen in the settings: applied now
// and again whenever a setting changes (the bridge asks the device only when the device changed).
void followEngineSettings(ModelManagerBridge& bridge, const chat::AppSettings& settings);

}  // namespace trit::models
