extension Int {
    /// `value` rounded to the nearest integer, never trapping: values past either end of `Int` give that end,
    /// NaN gives 0. Renderers convert through this, because a store may hold any number (see ``TraceTime``).
    init(saturating value: Double) {
        let rounded = value.rounded()
        if rounded.isNaN {
            self = 0
        } else if rounded >= 0x1p63 {
            self = .max
        } else if rounded < -0x1p63 {
            self = .min
        } else {
            self = Int(rounded)
        }
    }
}
