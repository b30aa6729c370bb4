package iqa

// PLACEHOLDER: replaced by the pixel-domain implementation.

type pixelWorkspace struct{}

func (s *Scorer) scorePixel(ref, dist *Gray) (Result, error) {
	panic("iqa: pixel VIF not implemented yet")
}
