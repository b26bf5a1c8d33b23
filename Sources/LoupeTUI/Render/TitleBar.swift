/// The top line: name, store, filter, count and follow mode.
struct TitleBar {
    let state: InspectorState

    func render(in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, style: .title)
        var right = state.follow ? "follow on " : "follow off "
        if let count = state.storeCount {
            let shown = state.filterDescription == nil ? "" : "\(QuantityFormat.grouped(state.rows.count)) of "
            right = "\(shown)\(QuantityFormat.grouped(count)) exchange\(count == 1 ? "" : "s") · " + right
        }
        let rightX = max(area.x, area.maxX - DisplayWidth.of(right))
        var left = " Loupe · \(state.storeName)"
        if let filter = state.filterDescription { left += " · filter: \(filter)" }
        buffer.write(DisplayWidth.truncate(left, to: rightX - area.x - 1), x: area.x, y: area.y, style: .title)
        buffer.write(right, x: rightX, y: area.y, maxWidth: area.maxX - rightX, style: .title)
    }
}
