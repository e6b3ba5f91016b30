#pragma once
// What QML's model manager page talks to: the catalogue joined with the models folder and the running
// downloads, as a list model (ModelListModel, model_list_model.h). Downloads run on DownloadManager's
// worker thread; everything arrives here through its queued signals. Folder scans (folder_scan.h:
// listing the folder and reading every GGUF header with the engine) and imports (engine validation plus
// copy) run on a worker thread of their own, one after the other, so neither a large folder nor a 1 GiB
// copy freezes the window; results come back queued. The selected GPU's memory is asked by GpuProbe
// (gpu_probe.h) on a pool thread for the same reason (creating a Vulkan instance is slow).
#include <QtQml/qqmlregistration.h>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QThread>
#include <QUrl>
#include <QVariantList>
#include <functional>
#include <memory>

#include "catalog.h"
#include "catalog_loader.h"
#include "download_manager.h"
#include "folder_scan.h"
#include "gpu_probe.h"
#include "model_inspector.h"
#include "model_list_model.h"
#include "models_folder.h"

class QQmlEngine;

namespace trit::models {

class ModelManagerBridge : public QObject {
  Q_OBJECT
  QML_NAMED_ELEMENT(ModelManager)
  QML_UNCREATABLE("main() makes the one model manager: App.models")
  Q_PROPERTY(trit::models::ModelListModel* model READ model CONSTANT)
  // The models on disk only (the chat header's switcher), a filter over `model`.
  Q_PROPERTY(trit::models::InstalledModelsModel* installed READ installed CONSTANT)
  Q_PROPERTY(int installedCount READ installedCount NOTIFY rowsChanged)
  Q_PROPERTY(QVariantMap recommendedModel READ recommendedModel NOTIFY rowsChanged)
  Q_PROPERTY(QString modelsFolder READ modelsFolder NOTIFY modelsFolderChanged)
  Q_PROPERTY(QString catalogError READ catalogError NOTIFY rowsChanged)
  Q_PROPERTY(bool importing READ importing NOTIFY importingChanged)
  Q_PROPERTY(QString modelsFolderError READ modelsFolderError NOTIFY modelsFolderChanged)
  Q_PROPERTY(bool scanning READ scanning NOTIFY scanningChanged)
  // The selected GPU (settings: device, context length) and what it offers.
  Q_PROPERTY(int gpuDevice READ gpuDevice NOTIFY gpuChanged)
  Q_PROPERTY(int contextLength READ contextLength NOTIFY gpuChanged)
  Q_PROPERTY(qint64 gpuFreeBytes READ gpuFreeBytes WRITE setGpuFreeBytes NOTIFY gpuChanged)
  Q_PROPERTY(qint64 gpuTotalBytes READ gpuTotalBytes NOTIFY gpuChanged)
  Q_PROPERTY(QString gpuName READ gpuName NOTIFY gpuChanged)
  Q_PROPERTY(QString gpuError READ gpuError NOTIFY gpuChanged)
  Q_PROPERTY(QString gpuSummary READ gpuSummary NOTIFY gpuChanged)  // one sentence for the settings
 public:
  // `catalogLocation` as for catalogLocation() (empty: $TRIT_CATALOG, else built in); `modelsDir` as for
  // ModelsFolder::resolve(). Both are resolved here, once. Call load() to read them.
  ModelManagerBridge(const QString& catalogLocation, const QString& modelsDir, DownloadOptions options = {},
                     QObject* parent = nullptr);
  ~ModelManagerBridge() override;

  // Reads the catalogue (asynchronously for URLs) and scans the folder (on the worker thread); `ready`
  // follows once both are done.
  void load();
  bool isReady() const { return loadsPending_ == 0; }
  bool scannedOnce() const { return scannedOnce_; }
  // Runs the event loop (the scan itself stays on the worker) until the first scan after load() has been
  // applied or `timeoutMs` passed; true when it was. main() gives the scan this moment before the window
  // opens, so the first-start offer of the model manager knows whether any model is installed.
  bool waitForFirstScan(int timeoutMs);
  // Where the catalogue is read from: --catalog, else $TRIT_CATALOG, else the built-in one.
  QString catalogSource() const { return catalogLocation_; }
  int catalogSize() const { return int(catalog_.models.size()); }

  // Tests: how a file is inspected (default inspectModel) and how the GPU is asked (default
  // queryGpuMemory). Set before load().
  void setInspector(ModelInspector inspector);
  void setGpuProbe(GpuMemoryProbe probe) { gpu_.setProbe(std::move(probe)); }

  ModelListModel* model() { return &model_; }
  InstalledModelsModel* installed() { return &installed_; }
  int installedCount() const;
  // What the first start offers (qml/FirstRun.qml), as a row's map (ModelListModel::toMap): the catalogue lists its
  // models in the order it recommends them, so the first one that fits the selected GPU; while the GPU's memory is
  // unknown, the catalogue's first model. Empty when the GPU is known and none is known to fit.
  QVariantMap recommendedModel() const;
  QString modelsFolder() const { return folder_.path(); }
  QString catalogError() const { return catalogError_; }
  QString modelsFolderError() const { return modelsFolderError_; }
  bool importing() const { return importing_ > 0; }
  bool scanning() const { return scansPending_ > 0; }
  int gpuDevice() const { return gpu_.device(); }
  int contextLength() const { return context_; }
  qint64 gpuFreeBytes() const { return gpu_.memory().freeBytes; }
  qint64 gpuTotalBytes() const { return gpu_.memory().totalBytes; }
  QString gpuName() const { return gpu_.memory().deviceName; }
  QString gpuError() const { return gpu_.memory().error; }
  QString gpuSummary() const;
  // A memory figure given directly (tests, or a caller that already knows it): no device is asked.
  void setGpuFreeBytes(qint64 bytes);

  // The device (-1: automatic) and context length (0: each model's trained one) the fit is judged for.
  // A changed device is asked for its memory on a pool thread; gpuChanged follows.
  Q_INVOKABLE void selectGpu(int device, int contextLength);
  Q_INVOKABLE void refreshGpu();  // asks the selected device again (its free memory changes over time)

  // `existing` says what to do with a different file of the same name in the folder: "" keeps it (the
  // download stops with downloadConflict), "replace" (after the user confirmed) or "keep-both".
  Q_INVOKABLE bool download(const QString& id, const QString& existing = QString());
  Q_INVOKABLE void pause(const QString& id);
  Q_INVOKABLE void resume(const QString& id);
  Q_INVOKABLE void cancel(const QString& id);
  // A local .gguf (file URL or path): validated by the engine, then copied into the folder.
  Q_INVOKABLE void importFile(const QVariant& urlOrPath);
  Q_INVOKABLE void importFiles(const QVariantList& urls);  // the dialog's importRequested(fileUrls)
  // A catalogue id, an imported model's file name, or a path inside the folder. The dialog asks first.
  Q_INVOKABLE bool remove(const QString& idOrPath);
  // Switches to another folder (remembered in the settings) and rescans it. The folder must exist and be
  // writable; otherwise the old one stays, modelsFolderError says why and false is returned.
  Q_INVOKABLE bool setModelsDir(const QString& pathOrUrl);
  Q_INVOKABLE void rescan();  // on the worker thread; scanFinished follows
  // The installed file of a row (catalogue id or file name), "" when it is not installed.
  Q_INVOKABLE QString pathOf(const QString& id) const;

 signals:
  void ready();        // the catalogue was read (or failed: see catalogError) and the folder scanned
  void rowsChanged();  // a row, the catalogue or the fit changed
  void modelsFolderChanged();
  void importingChanged();
  void scanningChanged();
  void scanFinished();  // a folder scan's result has been applied to the rows
  void gpuChanged();
  void errorOccurred(const QString& message);  // a sentence for the user
  void downloadFinished(const QString& id, bool ok, const QString& message);
  // A different file has the download's name (`fileName`); it was kept. The dialog asks the user to keep
  // both or to replace it, and calls download() again with the choice.
  void downloadConflict(const QString& id, const QString& name, const QString& fileName, const QString& message);
  void importFinished(bool ok, const QString& pathOrMessage);
  void removed(const QString& path);

 private:
  void rebuild();                                     // rows from the last scan, the catalogue and live state
  void requestScan(std::function<void()> then = {});  // scan on the worker, apply, then `then`
  void applyScan(FolderScan scan);
  void loaded();        // one of load()'s two parts is done
  void onGpuChanged();  // the probe answered (or was given a figure)
  void changed(int row);
  int rowOf(const QString& id) const { return model_.indexOf(id); }
  void onProgress(const QString& id, const DownloadProgress& p);
  void onState(const QString& id, DownloadTask::State s, const QString& message);
  void onFinished(const QString& id, bool ok, const QString& result);
  void fail(const QString& message);

  QString catalogLocation_;
  ModelInspector inspector_ = inspectModel;
  ModelsFolder folder_;
  QString modelsFolderError_;
  FolderScan scanned_;  // the last scan of folder_ (GUI thread copy)
  Catalog catalog_;
  QString catalogError_;
  ModelListModel model_;
  InstalledModelsModel installed_{&model_};
  std::unique_ptr<DownloadManager> downloads_;
  QThread workerThread_;
  QObject* workerContext_ = nullptr;  // lives on workerThread_; scans and imports run there, in order
  int importing_ = 0;
  int scansPending_ = 0;
  int loadsPending_ = 2;  // the catalogue and the first scan
  bool scannedOnce_ = false;
  GpuProbe gpu_;  // the selected device and its memory, asked off the GUI thread
  int context_ = 0;
  QHash<QString, ModelRow> live_;  // download state by id, kept across rebuilds
  QSet<QString> cancelling_;       // ids whose cancel() is on its way (their failure is no error)
  QSet<QString> conflicted_;       // ids whose download stopped at another file of the same name
};

// For main(): the app's bridge (catalogue from --catalog, $TRIT_CATALOG or the built-in one; folder from
// --models-dir, $TRIT_MODELS_DIR, the setting or the data folder), owned by `engine`, loaded, and given
// to QML as App.models (app_services.h). Call before loading Main.qml.
ModelManagerBridge* exposeModelManager(QQmlEngine& engine, const QString& catalogOption = {},
                                       const QString& modelsDirOption = {});

}  // namespace trit::models
