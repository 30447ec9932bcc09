package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/store"
)

// masterKey returns the key that protects data at rest: SLUICE_MASTER_KEY when set (at least
// 32 characters), else the key file master.key in the data directory, created with mode 0600
// on first start. Keep it out of database backups: without it, secrets cannot be read.
func masterKey(dataDir, fromEnv string, log *slog.Logger) (string, error) {
	if fromEnv != "" {
		if len(fromEnv) < 32 {
			return "", errors.New("SLUICE_MASTER_KEY must be at least 32 characters")
		}
		return fromEnv, nil
	}
	path := filepath.Join(dataDir, "master.key")
	b, err := os.ReadFile(path)
	if err == nil {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			log.Warn("the master key file is readable by others: chmod 600 it", "path", path, "mode", st.Mode().Perm().String())
		}
		key := strings.TrimSpace(string(b))
		if len(key) < 32 {
			return "", fmt.Errorf("%s holds fewer than 32 characters", path)
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("master key: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	key := hex.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("master key: %w", err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	log.Info("created the master key (keep it out of database backups)", "path", path)
	return key, nil
}

// sealAtRest converts what earlier versions kept readable in the database: API keys in plain
// text become hashes and sealed copies, and secrets sealed under a key derived from the
// database alone are sealed again under the master key.
func sealAtRest(ctx context.Context, db *store.DB, signing string, log *slog.Logger) error {
	n, err := db.SealKeys(ctx)
	if err != nil {
		return err
	}
	legacyKey := sha256.Sum256([]byte("secrets:" + signing))
	legacy, err := auth.NewSealer(legacyKey[:])
	if err != nil {
		return err
	}
	m, err := db.ResealSecrets(ctx, legacy)
	if err != nil {
		return err
	}
	if n+m > 0 {
		log.Info("sealed data at rest from an earlier version", "keys", n, "secrets", m)
	}
	return nil
}
