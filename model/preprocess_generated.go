package model

import "fmt"

// ForGenerated returns p adapted to images that were already resized
// (shorter side resize pixels; 0 = not resized) and centre-cropped
// (crop×crop; 0 = not cropped) before, as vcr generate --resize and --crop
// do and a test set's run.json records, so that the model does not see
// them resized twice.
//
// When the images are crop×crop and p would resize and crop them to that
// same size (preset imagenet on a --resize 256 --crop 224 test set), the
// adapted preprocessing drops its resize and crop: the images are fed
// unchanged apart from normalisation. Likewise a resize to the shorter
// side the images already have is dropped. note then says what was
// skipped (one line for the user); it is "" when nothing changed.
// warning is set when p still resizes images that were resized before
// (another crop or resize size): the model then sees twice-resampled
// pixels, which changes predictions; it names what to use instead.
func (p Preprocess) ForGenerated(resize, crop int) (q Preprocess, note, warning string) {
	q = p
	if resize <= 0 && crop <= 0 {
		return q, "", ""
	}
	did := describeGenerate(resize, crop)
	cw, ch := p.crop()
	switch {
	case crop > 0 && cw == crop && ch == crop:
		q.Resize, q.CropWidth, q.CropHeight = 0, 0, 0
		note = fmt.Sprintf("the test set's images are %d×%d already (vcr generate %s); the preprocessing skips its own", crop, crop, did)
		if p.Resize > 0 {
			note += fmt.Sprintf(" resize to %d and", p.Resize)
		}
		note += fmt.Sprintf(" crop to %d×%d and feeds them unchanged apart from normalisation", cw, ch)
		if p.Width > 0 && (p.Width != crop || p.Height != crop) {
			warning = fmt.Sprintf("the preprocessing resizes the test set's %d×%d images (vcr generate %s) to %d×%d; give a --config whose width and height are %d, or regenerate the test set at the model's size", crop, crop, did, p.Width, p.Height, crop)
		}
	case crop > 0 && (p.Resize > 0 || cw > 0 || p.Width > 0 && (p.Width != crop || p.Height != crop)):
		warning = fmt.Sprintf("the test set's images were already resized and cropped to %d×%d by vcr generate %s, and the preprocessing resizes or crops them again (%s), which changes the pixels the model sees; use --preset imagenet-cropped (224×224 images) or a --config with crop_width and crop_height %d", crop, crop, did, p.describeSize(), crop)
	case crop <= 0 && p.Resize == resize:
		q.Resize = 0
		note = fmt.Sprintf("the test set's images have the shorter side %d already (vcr generate %s); the preprocessing skips its own resize to %d", resize, did, p.Resize)
	case crop <= 0 && p.Resize > 0:
		warning = fmt.Sprintf("the test set's images were already resized to the shorter side %d by vcr generate %s, and the preprocessing resizes them again to %d, which changes the pixels the model sees; use a --config with resize %d or 0", resize, did, p.Resize, resize)
	}
	return q, note, warning
}

// describeGenerate writes the vcr generate flags of a resize and crop.
func describeGenerate(resize, crop int) string {
	switch {
	case resize > 0 && crop > 0:
		return fmt.Sprintf("--resize %d --crop %d", resize, crop)
	case resize > 0:
		return fmt.Sprintf("--resize %d", resize)
	}
	return fmt.Sprintf("--crop %d", crop)
}

// describeSize writes p's resizing steps, e.g. "resize 256, crop 232×232".
func (p Preprocess) describeSize() string {
	s := ""
	add := func(f string, a ...any) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf(f, a...)
	}
	if p.Resize > 0 {
		add("resize %d", p.Resize)
	}
	if cw, ch := p.crop(); cw > 0 {
		add("crop %d×%d", cw, ch)
	}
	if p.Width > 0 {
		add("size %d×%d", p.Width, p.Height)
	}
	return s
}
