package extract

import (
	"archive/zip"
	"fmt"
	"io"
)

// checkZip refuses archives that would unzip to far more than they weigh (zip bombs) or that
// are truncated.
func checkZip(r io.ReaderAt, size int64) error {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("the Excel file is damaged or truncated: %w", err)
	}
	var total uint64
	for _, f := range z.File {
		total += f.UncompressedSize64
		if f.CompressedSize64 > 0 && f.UncompressedSize64/f.CompressedSize64 > 200 && f.UncompressedSize64 > 50<<20 {
			return fmt.Errorf("the Excel file expands to %d MiB from %d KiB inside: refused as a possible zip bomb", f.UncompressedSize64>>20, f.CompressedSize64>>10)
		}
	}
	if total > xlsxUnzipLimit {
		return fmt.Errorf("the Excel file expands to %d MiB, more than the %d MiB limit", total>>20, xlsxUnzipLimit>>20)
	}
	return nil
}
