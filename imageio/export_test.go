package imageio

// ResizeFloat exposes Resize's float path to the external tests, which check
// it against formulas also for 8-bit images (which Resize sends to the 8-bit
// path).
var ResizeFloat = resizeFloat
