#include "app_services.h"

#include <QQmlEngine>

// The QML module Trit.App (app/CMakeLists.txt) has no plugin: its generated registration registers the
// types when its object file is linked. This global (external linkage, so always emitted) refers to it,
// which links it into every binary that uses the services; loadMainWindow() always does.
void qml_register_types_Trit_App();
void (*volatile tritAppQmlRegistration)() = &qml_register_types_Trit_App;

namespace trit::app {

namespace {
constexpr char kProperty[] = "_trit_app_services";
}  // namespace

AppServices* AppServices::of(QQmlEngine& engine) {
  if (auto* existing = engine.property(kProperty).value<AppServices*>()) return existing;
  auto* services = new AppServices(&engine);
  QJSEngine::setObjectOwnership(services, QJSEngine::CppOwnership);  // the engine deletes it as its child
  engine.setProperty(kProperty, QVariant::fromValue(services));
  return services;
}

AppServices* AppServices::create(QQmlEngine* engine, QJSEngine*) {
  return of(*engine);
}

void AppServices::setModels(models::ModelManagerBridge* models) {
  models_ = models;
  if (models) QJSEngine::setObjectOwnership(models, QJSEngine::CppOwnership);
  emit servicesChanged();
}

void AppServices::setAbout(about::AboutInfo* about) {
  about_ = about;
  if (about) QJSEngine::setObjectOwnership(about, QJSEngine::CppOwnership);
  emit servicesChanged();
}

}  // namespace trit::app
