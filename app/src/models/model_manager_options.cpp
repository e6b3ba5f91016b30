#include "model_manager_options.h"

#include <QCommandLineParser>

#include "model_manager_bridge.h"
#include "settings/app_settings.h"

namespace trit::models {

QCommandLineOption catalogOption() {
  return {QStringLiteral("catalog"),
          QStringLiteral("Model catalogue file or https URL (default: $TRIT_CATALOG, else built in)."),
          QStringLiteral("URL_OR_FILE")};
}

QCommandLineOption modelsDirOption() {
  return {QStringLiteral("models-dir"),
          QStringLiteral("Models folder (default: $TRIT_MODELS_DIR, the setting, else the data folder)."),
          QStringLiteral("DIR")};
}

void addModelManagerOptions(QCommandLineParser& parser) {
  parser.addOptions({catalogOption(), modelsDirOption()});
}

ModelManagerSetup readModelManagerOptions(const QCommandLineParser& parser) {
  return {parser.value(catalogOption()), parser.value(modelsDirOption())};
}

void followEngineSettings(ModelManagerBridge& bridge, const chat::AppSettings& settings) {
  const auto apply = [&bridge, &settings] { bridge.selectGpu(settings.device(), settings.contextLength()); };
  QObject::connect(&settings, &chat::AppSettings::changed, &bridge, apply);
  apply();
}

}  // namespace trit::models
