// Package pki generates the certificates and keys of the local control
// plane into its state directory, reusing whatever is already there so that a
// restart keeps the same identities.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Pair is a certificate and key on disk.
type Pair struct{ Cert, Key string }

// CA is a certificate authority that can sign leaf certificates.
type CA struct {
	Pair
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// Leaf describes a certificate to issue.
type Leaf struct {
	Name   string // file base name
	CN     string
	Orgs   []string
	Hosts  []string // DNS names and IPs
	Server bool
	Client bool
}

// LoadOrCreateCA returns the CA stored as dir/name.{crt,key}, creating it if missing.
func LoadOrCreateCA(dir, name string) (*CA, error) {
	p := Pair{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key")}
	if cert, key, err := load(p); err == nil {
		return &CA{Pair: p, cert: cert, key: key}, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, _ := x509.ParseCertificate(der)
	if err := write(p, der, key); err != nil {
		return nil, err
	}
	return &CA{Pair: p, cert: cert, key: key}, nil
}

// Issue returns the leaf stored as dir/l.Name.{crt,key}, signing it if missing.
func (ca *CA) Issue(dir string, l Leaf) (Pair, error) {
	p := Pair{Cert: filepath.Join(dir, l.Name+".crt"), Key: filepath.Join(dir, l.Name+".key")}
	if _, _, err := load(p); err == nil {
		return p, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: l.CN, Organization: l.Orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	if l.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if l.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	for _, h := range l.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return p, err
	}
	return p, write(p, der, key)
}

// ServiceAccountKey writes an RSA key pair for service account tokens.
func ServiceAccountKey(dir string) (priv, pub string, err error) {
	priv, pub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if _, err := os.Stat(pub); err == nil {
		return priv, pub, nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return "", "", err
	}
	return priv, pub, os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

func write(p Pair, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.Key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(p.Cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func load(p Pair) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, err := os.ReadFile(p.Cert)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(p.Key)
	if err != nil {
		return nil, nil, err
	}
	cblk, _ := pem.Decode(cb)
	kblk, _ := pem.Decode(kb)
	if cblk == nil || kblk == nil {
		return nil, nil, errors.New("bad PEM")
	}
	cert, err := x509.ParseCertificate(cblk.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kblk.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Key, err)
	}
	return cert, key, nil
}
