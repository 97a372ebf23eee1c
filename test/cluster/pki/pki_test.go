package pki

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestIssueIsVerifiableAndReused(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateCA(dir, "ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf := Leaf{Name: "apiserver", CN: "kube-apiserver", Server: true, Hosts: []string{"127.0.0.1", "localhost"}}
	p, err := ca.Issue(dir, leaf)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(p.Cert, p.Key)
	if err != nil {
		t.Fatalf("issued pair does not load: %v", err)
	}
	cert, _ := x509.ParseCertificate(pair.Certificate[0])
	caPEM, _ := os.ReadFile(ca.Cert)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"}); err == nil {
		t.Error("certificate verified for a host it was not issued for")
	}

	// A second start reuses the CA and the leaf instead of re-issuing them.
	before, _ := os.ReadFile(p.Cert)
	ca2, err := LoadOrCreateCA(dir, "ca")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca2.Issue(dir, leaf); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p.Cert)
	if string(before) != string(after) {
		t.Error("leaf certificate was re-issued on a second start")
	}
}

func TestClientCertificateCarriesGroups(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateCA(dir, "ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(dir, Leaf{Name: "admin", CN: "ramp-admin", Orgs: []string{"system:masters"}, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(p.Cert, p.Key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(pair.Certificate[0])
	if cert.Subject.CommonName != "ramp-admin" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
		t.Errorf("subject = %v", cert.Subject)
	}
	if len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth {
		t.Errorf("ext key usage = %v, want client auth only", cert.ExtKeyUsage)
	}
}
