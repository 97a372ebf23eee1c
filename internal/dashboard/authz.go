package dashboard

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
)

// Access is one thing a user asks to do, as RBAC names it. Name is the
// object's, for a request about one object (so RBAC limited by
// resourceNames is honoured); empty for a list.
type Access struct {
	Verb, Group, Resource, Subresource, Namespace, Name string
}

func (a Access) String() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	if a.Subresource != "" {
		r += "/" + a.Subresource
	}
	where := fmt.Sprintf("in namespace %q", a.Namespace)
	if a.Namespace == "" {
		where = "at the cluster scope"
	}
	return fmt.Sprintf("%s %s %s", a.Verb, r, where)
}

// Authorizer says whether a user may do something.
type Authorizer interface {
	Allowed(ctx context.Context, u User, a Access) (bool, error)
}

// allowAll is the local mode's authorizer: the API server checks the
// kubeconfig identity itself.
type allowAll struct{}

func (allowAll) Allowed(context.Context, User, Access) (bool, error) { return true, nil }

// SubjectAccessReviewer asks the API server, with a SubjectAccessReview,
// whether the user may do what they ask, and remembers each answer for TTL
// so that a page view costs a few reviews, not one per object.
type SubjectAccessReviewer struct {
	Reviews authzclient.SubjectAccessReviewInterface
	TTL     time.Duration
	Now     func() time.Time

	mu    sync.Mutex
	cache map[string]decision
}

type decision struct {
	allowed bool
	until   time.Time
}

// Allowed answers from the cache, else from a SubjectAccessReview.
func (s *SubjectAccessReviewer) Allowed(ctx context.Context, u User, a Access) (bool, error) {
	groups := slices.Clone(u.Groups)
	slices.Sort(groups)
	key := strings.Join([]string{u.Name, u.UID, strings.Join(groups, ","), a.Verb, a.Group, a.Resource, a.Subresource, a.Namespace, a.Name}, "\x00")
	now := s.Now()
	key += "\x00" + extraKey(u.Extra) // token scopes or a credential in extra change the answer
	s.mu.Lock()
	d, ok := s.cache[key]
	s.mu.Unlock()
	if ok && now.Before(d.until) {
		return d.allowed, nil
	}
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	review := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: u.Name, Groups: u.Groups, UID: u.UID, Extra: extra,
		ResourceAttributes: &authzv1.ResourceAttributes{
			Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name,
		},
	}}
	got, err := s.Reviews.Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("subject access review (%s): %w", a, err)
	}
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]decision{}
	}
	for k, d := range s.cache { // keep the cache as small as the live decisions
		if !now.Before(d.until) {
			delete(s.cache, k)
		}
	}
	s.cache[key] = decision{got.Status.Allowed, now.Add(s.TTL)}
	s.mu.Unlock()
	return got.Status.Allowed, nil
}

// extraKey is a user's extra attributes in a stable order, for the cache
// key.
func extraKey(extra map[string][]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		b.WriteString(strconv.Quote(k))
		for _, v := range extra[k] {
			b.WriteString("," + strconv.Quote(v))
		}
		b.WriteString(";")
	}
	return b.String()
}
