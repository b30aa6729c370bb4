package jpeg

import (
	"os"
	"path/filepath"
	"testing"
)

// PhotoFiles returns the photographs BenchmarkDecodePhoto decodes, by
// name: ImageNet-C's frost5.jpeg (660×495, baseline 4:2:0, quality 90, from
// another encoder), the same picture as a baseline 4:4:4 file written by
// Pillow (testdata/frost5_444_q75.jpg), ImageNet-C's frost4.jpeg (527×350,
// progressive 4:4:4), and a grayscale file: frost5's luma
// (0.299R + 0.587G + 0.114B, rounded) encoded by vcr at quality 90.
func PhotoFiles(tb testing.TB) (names []string, files [][]byte) {
	read := func(p ...string) []byte {
		b, err := os.ReadFile(filepath.Join(p...))
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	frost5 := read("..", "..", "corrupt", "frostdata", "frost5.jpeg")
	var d Decoder
	m, err := d.Decode(nil, frost5)
	if err != nil {
		tb.Fatal(err)
	}
	gray := make([]uint8, m.Width*m.Height)
	for i := range gray {
		p := m.Pix[3*i:]
		gray[i] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2]) + 500) / 1000)
	}
	var e Encoder
	grayFile, err := e.EncodeGray(nil, gray, m.Width, m.Height, m.Width, 90)
	if err != nil {
		tb.Fatal(err)
	}
	return []string{"420", "444", "progressive444", "gray"}, [][]byte{
		frost5,
		read("testdata", "frost5_444_q75.jpg"),
		read("..", "..", "corrupt", "frostdata", "frost4.jpeg"),
		grayFile,
	}
}
