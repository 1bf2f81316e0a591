import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { ClientSecret } from './client-secret.type.js';
import type { SecretsService } from './secrets.service.js';

@Resolver()
export class SecretsResolver {
  constructor(private readonly secrets: SecretsService) {}

  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only: the app’s client secret in clear; every reveal is audited' })
  revealClientSecret(@Arg('appId', () => ID, { description: 'One of your apps (app_<ULID>)' }) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return this.secrets.reveal(requirePrincipal(context), appId, context.ipAddress);
  }

  @Authorized()
  @Mutation(() => ClientSecret, { description: 'Owner only: a new client secret; the old one stops signing at once; audited' })
  rotateClientSecret(@Arg('appId', () => ID, { description: 'One of your apps (app_<ULID>)' }) appId: string, @Ctx() context: RequestContext): Promise<ClientSecret> {
    return this.secrets.rotate(requirePrincipal(context), appId, context.ipAddress);
  }
}
