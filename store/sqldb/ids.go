package sqldb

import (
	"crypto/rand"
	"math/big"
)

// Id prefixes follow Flatfile's `<region>_<type>_` scheme.
const (
	PrefixAccount     = "us_acc_"
	PrefixEnvironment = "us_env_"
	PrefixSpace       = "us_sp_"
	PrefixWorkbook    = "us_wb_"
	PrefixSheet       = "us_sh_"
	PrefixRecord      = "us_rc_"
	PrefixVersion     = "us_vr_"
	PrefixSnapshot    = "us_ss_"
	PrefixEvent       = "us_evt_"
	PrefixUser        = "us_usr_"
	PrefixKey         = "us_key_"
	PrefixJob         = "us_jb_"
	PrefixFile        = "us_fl_"
	PrefixDocument    = "us_dc_"
)

const IDAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// RandomString returns n characters drawn uniformly from [A-Za-z0-9] by crypto/rand.
func RandomString(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(IDAlphabet)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		b[i] = IDAlphabet[v.Int64()]
	}
	return string(b)
}

// NewID returns prefix followed by 8 random characters (16 for events), as Flatfile's ids.
func NewID(prefix string) string {
	if prefix == PrefixEvent {
		return prefix + RandomString(16)
	}
	return prefix + RandomString(8)
}
