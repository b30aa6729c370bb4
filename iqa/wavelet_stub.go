package iqa

// PLACEHOLDER: replaced by the steerable-pyramid implementation.

type waveWorkspace struct{}

func (s *Scorer) scoreWavelet(ref, dist *Gray) (Result, error) {
	panic("iqa: wavelet VIF not implemented yet")
}
