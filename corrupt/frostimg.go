package corrupt

import (
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"math"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

// The ImageNet-C frost textures (frost1.png … frost5.jpeg of
// hendrycks/robustness, Apache License 2.0; origin, checksums and licence in
// frostdata/README.md and frostdata/LICENSE), 1,989,818 bytes, embedded so
// that the default frost is ImageNet-C's without any file to install.
//
//go:embed frostdata/frost1.png frostdata/frost2.png frostdata/frost3.png frostdata/frost4.jpeg frostdata/frost5.jpeg
var frostFiles embed.FS

// frostFileNames are the embedded textures in ImageNet-C's order (the order
// np.random.randint(5) indexes).
var frostFileNames = [5]string{"frost1.png", "frost2.png", "frost3.png", "frost4.jpeg", "frost5.jpeg"}

// Names of the frost texture sets (Corruption.Textures).
const (
	// FrostImageNetC is the default: the five embedded ImageNet-C textures.
	FrostImageNetC = "imagenet-c"
	// FrostProcedural is the procedurally generated set that vcr used as
	// its default before the ImageNet-C files were embedded (frosttex.go).
	FrostProcedural = "procedural"
)

var (
	frostImgOnce sync.Once
	frostImg     []*imageio.Image
)

// ImageNetCFrostTextures returns the five ImageNet-C frost textures,
// decoded from the embedded files on first use (once per process; the
// alpha channel of the PNGs is dropped and the stored colour kept, as
// OpenCV's imread does in ImageNet-C). The result is shared and must not be
// modified. It panics if an embedded file does not decode, which would be
// a broken build.
func ImageNetCFrostTextures() []*imageio.Image {
	frostImgOnce.Do(func() {
		tex := make([]*imageio.Image, len(frostFileNames))
		var wg sync.WaitGroup
		for i, name := range frostFileNames {
			wg.Go(func() {
				data, err := frostFiles.ReadFile("frostdata/" + name)
				if err != nil {
					panic("corrupt: embedded frost texture " + name + ": " + err.Error())
				}
				m, _, err := imageio.DecodeBytes(data, imageio.Options{MaxPixels: -1})
				if err != nil {
					panic("corrupt: embedded frost texture " + name + ": " + err.Error())
				}
				tex[i] = m
			})
		}
		wg.Wait()
		frostImg = tex
	})
	return frostImg
}

// ProceduralFrostTextures returns the five procedurally generated frost
// textures (frosttex.go), built on first use. The result is shared and must
// not be modified.
func ProceduralFrostTextures() []*imageio.Image { return builtinFrostTextures() }

// frostFingerprint identifies a user-supplied texture set by its pixels:
// "sha256:" and the first 16 hex digits of the SHA-256 of every texture's
// width, height and float32 samples in order.
func frostFingerprint(tex []*imageio.Image) string {
	h := sha256.New()
	var b [4]byte
	for _, m := range tex {
		binary.LittleEndian.PutUint32(b[:], uint32(m.Width))
		h.Write(b[:])
		binary.LittleEndian.PutUint32(b[:], uint32(m.Height))
		h.Write(b[:])
		buf := make([]byte, 0, 4*len(m.Ch[0]))
		for c := range 3 {
			buf = buf[:0]
			for _, v := range m.Ch[c] {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
			h.Write(buf)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}
