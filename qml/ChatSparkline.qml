import QtQuick

// A small line chart of tokens per second over a reply. The history is bounded (the engine side halves
// its resolution when it fills), so a repaint costs the same however long the reply.
Canvas {
    id: spark
    property var values: []
    property color color: "green"
    implicitWidth: 80
    implicitHeight: 18
    Accessible.role: Accessible.Chart
    Accessible.name: qsTr("Generation speed over the reply")

    onValuesChanged: requestPaint()
    onColorChanged: requestPaint()
    onWidthChanged: requestPaint()
    onHeightChanged: requestPaint()

    onPaint: {
        const ctx = getContext("2d")
        ctx.reset()
        const n = values ? values.length : 0
        if (n < 2)
            return
        let max = 0
        for (let i = 0; i < n; ++i)
            max = Math.max(max, values[i])
        if (max <= 0)
            return
        ctx.strokeStyle = spark.color
        ctx.lineWidth = 1.5
        ctx.beginPath()
        for (let j = 0; j < n; ++j) {
            const x = j * (width - 2) / (n - 1) + 1
            const y = height - 1 - (values[j] / max) * (height - 2)
            if (j === 0)
                ctx.moveTo(x, y)
            else
                ctx.lineTo(x, y)
        }
        ctx.stroke()
    }
}
