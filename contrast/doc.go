// Package contrast measures how a classifier's accuracy depends on the
// colour contrast between an object and its background, in the manner of
// the CIFAR-CoCo study ("On Human Visual Contrast Sensitivity and Machine
// Vision Robustness: A Comparative Study"), joined with corruption severity
// or Δv.
//
// Each image carries a background and a foreground colour from an 8-label
// palette (Colours); the unordered pair maps to a contrast group (Table,
// BuiltinTable) ordered low < low-mid < high-mid < high, plus "others".
// Analyse computes per-group accuracies (clean, corrupted, per corruption,
// per severity or Δv bin), the slope of accuracy on the ordered group index
// with a bootstrap interval, the weighted standard deviation of the group
// accuracies (sensitivity to contrast) and of the level accuracies
// (sensitivity to severity), the contrast × level grid, and comparisons of
// models. Estimate guesses the two colours of an image without labels; its
// labels are marked as estimates.
package contrast
