#pragma once
// The model manager's rows for QML: the catalogue joined with the models folder and the running
// downloads (ModelRow, filled by ModelManagerBridge), as a list model whose ModelDataRole is the whole
// row as the plain map qml/ModelCard.qml shows. The fit of each row for the selected GPU is judged
// here, by the engine's rule (fitsGpu), and every figure is formatted here, once.
#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QList>
#include <QSortFilterProxyModel>
#include <QVariantMap>

#include "catalog.h"
#include "download_types.h"
#include "model_inspector.h"

namespace trit::models {

// One row: a catalogue entry (with its installed file, if any) or an installed model the catalogue does
// not list (imported by the user). Plain data, built by ModelManagerBridge.
struct ModelRow {
  QString id;  // catalogue id, or the file name for an imported model
  bool inCatalog = false;
  CatalogEntry entry;  // valid when inCatalog
  ModelInfo info;      // filled when installed
  bool installed = false;
  bool downloading = false;
  bool paused = false;
  DownloadProgress progress;
  QString message;  // last status line of the download ("Paused at 3 MiB.")
  QString error;    // last failure, in words
};

class ModelListModel : public QAbstractListModel {
  Q_OBJECT
  QML_ANONYMOUS
 public:
  enum Role {
    IdRole = Qt::UserRole + 1,
    NameRole,
    DescriptionRole,
    SizeRole,
    LicenseRole,
    InstalledRole,
    PathRole,
    DownloadingRole,
    PausedRole,
    BytesReceivedRole,
    BytesTotalRole,
    PercentRole,
    SpeedRole,
    SecondsLeftRole,
    ErrorRole,
    MemoryNeededRole,
    FitsGpuRole,
    StateRole,
    QuantizationRole,
    ContextLengthRole,
    InCatalogRole,
    // What the model is (issue 27): the installed file's own header, else the catalogue's figures. The
    // weight format is QuantizationRole ("I2_S", "TQ2_0", "TQ1_0", "TQ2_0+TQ1_0").
    ArchitectureRole,
    ParametersRole,
    LicenseUrlRole,
    // The whole row as the dialog's map (toMap), so a delegate's `required property var modelData` gets it
    // from this model exactly as from a plain array, and only changed rows update.
    ModelDataRole
  };
  Q_ENUM(Role)

  explicit ModelListModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void setRows(QList<ModelRow> rows);          // a full reset (catalogue or folder changed)
  void updateRow(int row, const ModelRow& r);  // one row changed (download progress)
  const QList<ModelRow>& rows() const { return rows_; }
  int indexOf(const QString& id) const;
  // The memory figure the fit is judged against (< 0: unknown) and whether it is a live budget ("free")
  // or only the heap size; the context length installed models are judged at (0: their trained one).
  void setGpu(qint64 freeBytes, bool budget);
  void setContextLength(int context);

  // The row as the page's plain map: the roles above plus sizeText, parametersText ("10.3 B", "" while
  // unknown), progressText (the whole line), its parts receivedText ("4.20 MiB of 10.0 MiB"), speedText
  // ("1.00 MiB/s") and timeLeftText ("6 s left", both "" unless downloading), message, fits and fitText
  // ("fits (needs 1.6 GiB of 7.8 GiB free)", "does not fit (...)", "" while unknown).
  QVariantMap toMap(int row) const;
  qint64 memoryNeeded(const ModelRow& r) const;  // bytes, 0 when unknown
  QString fitText(const ModelRow& r) const;

 private:
  QVariant fits(const ModelRow& r) const;  // true/false, or an invalid QVariant while unknown
  void allChanged(const QList<int>& roles);
  QList<ModelRow> rows_;
  qint64 gpuFreeBytes_ = -1;
  bool gpuBudget_ = false;
  int context_ = 0;
};

// The rows of models on disk (state "installed"), for the chat header's model switcher; follows the
// source's changes (a finished download appears, a removed model goes).
class InstalledModelsModel : public QSortFilterProxyModel {
  Q_OBJECT
  QML_ANONYMOUS
 public:
  explicit InstalledModelsModel(ModelListModel* source, QObject* parent = nullptr);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
};

// The name a row is shown by: the catalogue's, else the file's own, else its file name.
QString displayName(const ModelRow& r);

}  // namespace trit::models
