import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { ClientSecret } from './client-secret.type.js';

@Resolver()
export class SecretsResolver {
  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only; every reveal is audited' })
  revealClientSecret(@Arg('appId', () => ID) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return context.services.secrets.reveal(requirePrincipal(context), appId, context.ipAddress);
  }

  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only; the old secret stops working at once' })
  rotateClientSecret(@Arg('appId', () => ID) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return context.services.secrets.rotate(requirePrincipal(context), appId, context.ipAddress);
  }
}
