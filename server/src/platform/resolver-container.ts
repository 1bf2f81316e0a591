import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import type { ContainerType } from 'type-graphql';

type ResolverClass<T> = abstract new (...args: never[]) => T;

/**
 * type-graphql's `container`: each resolver class maps to the one instance the wiring made with the
 * process's services, so a resolver names what it needs in its constructor.
 */
export class ResolverContainer implements ContainerType {
  private readonly instances = new Map<ResolverClass<object>, object>();

  add(...instances: object[]): this {
    for (const instance of instances) this.instances.set(instance.constructor as ResolverClass<object>, instance);
    return this;
  }

  get(someClass: ResolverClass<object>): object {
    const instance = this.instances.get(someClass);
    // A resolver the wiring forgot would otherwise run with undefined services.
    if (!instance) throw new Error(`No ${someClass.name} was wired into the resolver container`);
    return instance;
  }
}

const containers = new WeakMap<GraphQLSchema, ResolverContainer>();

/** Remembers which container a built schema resolves with (see wiredResolver). */
export function registerResolverContainer(schema: GraphQLSchema, container: ResolverContainer): void {
  containers.set(schema, container);
}

/**
 * The wired instance of a resolver class, for a subscription's `subscribe` hook: type-graphql calls it
 * with the resolver data only, not on the resolver instance, so it finds the instance by the schema it runs in.
 */
export function wiredResolver<T extends object>(info: GraphQLResolveInfo, resolverClass: ResolverClass<T>): T {
  const container = containers.get(info.schema);
  if (!container) throw new Error('This schema was built without a resolver container (schema emission only)');
  return container.get(resolverClass) as T;
}
