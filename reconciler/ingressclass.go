package reconciler

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// DefaultController is the IngressClass controller name restyplane answers to.
const DefaultController = "restyplane.io/ingress"

// legacyClassAnnotation is how Ingresses named their class before spec.ingressClassName.
const legacyClassAnnotation = "kubernetes.io/ingress.class"

// classSet is the IngressClasses whose controller is restyplane's.
type classSet struct {
	names map[string]bool
	// isDefault is whether one of them is the cluster's default class, which then takes
	// the Ingresses that name no class.
	isDefault bool
}

func ownedClasses(classes []*networkingv1.IngressClass, controller string) classSet {
	c := classSet{names: map[string]bool{}}
	for _, ic := range classes {
		if ic.Spec.Controller != controller {
			continue
		}
		c.names[ic.Name] = true
		if ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			c.isDefault = true
		}
	}
	return c
}

// owns reports whether the Ingress belongs to one of the classes.
func (c classSet) owns(ing *networkingv1.Ingress) bool {
	if n := ing.Spec.IngressClassName; n != nil {
		return c.names[*n]
	}
	if n, ok := ing.Annotations[legacyClassAnnotation]; ok {
		return c.names[n]
	}
	return c.isDefault
}
