#pragma once
// The one way QML reaches the app's services that are not a window's initial properties: the QML
// singleton `App` of module Trit.App (`import Trit.App`, then `App.models`, `App.about`). A registered
// type, unlike the context properties it replaces, is known to qmllint, which checks every use of it.
// main() (and a test) fills it for its engine before loading QML; in a bare load its members are null
// and the window says what is missing.
#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QPointer>

#include "about/about_info.h"
#include "models/model_manager_bridge.h"

class QJSEngine;
class QQmlEngine;

namespace trit::app {

class AppServices : public QObject {
  Q_OBJECT
  QML_NAMED_ELEMENT(App)
  QML_SINGLETON
  // The model manager (downloads, the models folder, the GPU's fit); null in a bare load.
  Q_PROPERTY(trit::models::ModelManagerBridge* models READ models NOTIFY servicesChanged)
  // What About shows (version, devices, licences); null in a bare load.
  Q_PROPERTY(trit::about::AboutInfo* about READ about NOTIFY servicesChanged)

 public:
  // The instance of `engine` (made on first use, owned by the engine).
  static AppServices* of(QQmlEngine& engine);
  // QML's factory for the singleton: the same instance.
  static AppServices* create(QQmlEngine* engine, QJSEngine*);

  models::ModelManagerBridge* models() const { return models_; }
  about::AboutInfo* about() const { return about_; }
  void setModels(models::ModelManagerBridge* models);
  void setAbout(about::AboutInfo* about);

 signals:
  void servicesChanged();

 private:
  explicit AppServices(QObject* parent) : QObject(parent) {}
  QPointer<models::ModelManagerBridge> models_;
  QPointer<about::AboutInfo> about_;
};

}  // namespace trit::app
