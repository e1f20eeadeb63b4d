package reconciler

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
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

// ownedNow is the classes of controller that the class cache holds now. The informers'
// handlers judge by it which events can change the translation; a class that arrives
// late is an event of its own, which translates everything again.
func (c *cluster) ownedNow() classSet {
	classes, err := c.classes.List(labels.Everything())
	if err != nil {
		return classSet{names: map[string]bool{}}
	}
	return ownedClasses(classes, c.controller)
}

// isOurClass reports whether obj is an IngressClass of the controller.
func (c *cluster) isOurClass(obj any) bool {
	ic, ok := obj.(*networkingv1.IngressClass)
	return ok && ic.Spec.Controller == c.controller
}

// ownsAny reports whether any of objs is an Ingress of the controller's classes. In a
// cluster shared with another controller (an ingress-nginx being migrated from, say), its
// Ingresses and what only they reference would otherwise each translate every Ingress
// again.
func (c *cluster) ownsAny(objs ...any) bool {
	owned := c.ownedNow()
	for _, o := range objs {
		if ing, ok := o.(*networkingv1.Ingress); ok && owned.owns(ing) {
			return true
		}
	}
	return false
}
